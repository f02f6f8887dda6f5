public import LosslessJSON

// Smart SQL (decision 0203): SmartStore's query language, run by SQLite over virtual tables of
// the soups, inside one read transaction. docs/soups.md, "Smart SQL", has the rules.
extension SoupStore {
    /// One page of a query's results with `args` bound to its `?` parameters: SmartStore's
    /// `queryWithArgs`.
    ///
    /// ```swift
    /// let spec = QuerySpec.smart(
    ///     sql: "select {employees:employeeId} from {employees} where {employees:address.city} = ?", pageSize: 10)
    /// let rows = try store.query(spec, args: ["San Francisco"])
    /// ```
    ///
    /// - Parameters:
    ///   - spec: a smart query; `args` replace the ones it carries.
    ///   - pageIndex: the 0-based page.
    ///   - args: the values of the `?` parameters, in order.
    /// - Returns: the page's rows, each a JSON array of the row's selected values.
    /// - Throws: ``SoupError/Code/invalidQuery`` when `spec` is not a smart query (arguments
    ///   are for smart queries only, as in SmartStore) or for a bad page;
    ///   ``SoupError/Code/invalidSmartSQL`` for a statement that is not a `SELECT`, a malformed
    ///   reference, a number of arguments other than the number of `?`s, or SQL that SQLite
    ///   refuses; ``SoupError/Code/unknownSoup`` for a reference to no soup.
    public func query(_ spec: QuerySpec, pageIndex: Int = 0, args: [JSONValue]) throws -> [JSONValue] {
        guard case .smart(let sql, _) = spec.filter else {
            throw SoupError(.invalidQuery, "args can only be provided for smart queries")
        }
        var withArgs = spec
        withArgs.filter = .smart(sql: sql, args: args)
        return try query(withArgs, pageIndex: pageIndex)
    }

    /// The SQL that SQLite runs for a smart query, as SmartStore's `convertSmartSql` gives it:
    /// `{employees:lastName}` becomes `TABLE_1_1`, `{employees}` becomes `TABLE_1`.
    ///
    /// - Throws: what ``query(_:pageIndex:args:)`` throws for the conversion.
    public func convertSmartSQL(_ smartSQL: String) throws -> String {
        try read { state in try SmartSQLConverter(soups: ProjectionSoupReader(state: state).soups()).convert(smartSQL) }
    }

    /// How SQLite runs one page of a smart query: the SQL it runs, then one line per step of its
    /// plan (`EXPLAIN QUERY PLAN`), indented under the step it belongs to.
    ///
    /// A soup read through an index shows `VIRTUAL TABLE INDEX n:index on PATH (COLUMN) …` with
    /// the operators the index answers; one read whole shows `records by _soupEntryId`; `USE
    /// TEMP B-TREE FOR ORDER BY` means SQLite sorts the rows itself (docs/soups.md).
    /// - Throws: what ``query(_:pageIndex:args:)`` throws.
    public func explainSmartQuery(_ spec: QuerySpec, pageIndex: Int = 0) throws -> [String] {
        guard case .smart(let sql, let args) = spec.filter else {
            throw SoupError(.invalidQuery, "only smart queries have a SQL plan")
        }
        return try read { state in
            try SmartQueryEngine(reader: ProjectionSoupReader(state: state)).explain(
                sql, arguments: args, pageSize: spec.pageSize, pageIndex: pageIndex)
        }
    }
}
