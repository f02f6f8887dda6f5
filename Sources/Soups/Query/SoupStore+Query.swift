import LMDBStore
public import LosslessJSON

extension SoupStore {
    /// One page of the query's results.
    ///
    /// Each result is the whole record, or, when the spec has `selectPaths`, an array of the
    /// values at those paths; for a ``QuerySpec/smart(sql:args:pageSize:)`` query, a row: a JSON
    /// array of its selected values (docs/soups.md, "Smart SQL").
    /// - Parameters:
    ///   - spec: the soup, filter, order, page size and selected paths.
    ///   - pageIndex: the 0-based page; page `k` starts after `k × pageSize` results.
    /// - Throws: ``SoupError/Code/unknownSoup``, ``SoupError/Code/noIndexForPath`` for a
    ///   filter on a path with no index, ``SoupError/Code/invalidQuery`` for a bad page or
    ///   match expression; for smart queries, what ``query(_:pageIndex:args:)`` throws.
    /// - Complexity: O(log n + offset + pageSize) index keys for `all`, and for exact, range
    ///   and like filters ordered by their own path or, for exact, unordered; O(log n +
    ///   matches) for other filters, keeping only `offset + pageSize` sort keys in memory.
    ///   Only orderings on paths without an index read the records, one at a time.
    public func query(_ spec: QuerySpec, pageIndex: Int = 0) throws -> [JSONValue] {
        try read { state in try Self.page(spec, pageIndex: pageIndex, in: state) }
    }

    /// One page of the query's results in `state`: ``query(_:pageIndex:)`` and its observation.
    static func page(_ spec: QuerySpec, pageIndex: Int, in state: SoupState) throws -> [JSONValue] {
        if case .smart(let sql, let args) = spec.filter {
            return try SmartQueryEngine(reader: ProjectionSoupReader(state: state)).page(
                sql, arguments: args, pageSize: spec.pageSize, pageIndex: pageIndex)
        }
        let catalog = try state.requireSoup(spec.soupName)
        let ids = try QueryEngine(state: state, soup: catalog).pageIds(spec, pageIndex: pageIndex)
        return try ids.compactMap { entryId -> JSONValue? in
            guard let record = try state.record(catalog.soupId, entryId) else { return nil }
            guard let paths = spec.selectPaths else { return record }
            return .array(paths.map { SoupPath.project(record, $0, keepsNull: true) ?? .null })
        }
    }

    /// How many records the query matches (rows, for a smart query), ignoring paging.
    /// - Throws: what ``query(_:pageIndex:)`` throws.
    public func count(_ spec: QuerySpec) throws -> Int {
        try read { state in
            if case .smart(let sql, let args) = spec.filter {
                return try SmartQueryEngine(reader: ProjectionSoupReader(state: state)).count(sql, arguments: args)
            }
            return try QueryEngine(state: state, soup: state.requireSoup(spec.soupName)).count(spec.filter)
        }
    }

    /// The records of `soup` with `__local__` = `true`, in `_soupEntryId` order.
    /// - Complexity: O(dirty records), from the dirty-set projection.
    public func dirtyRecords(_ soup: String) throws -> [JSONValue] {
        try read { state in try state.dirtyRecords(in: state.requireSoup(soup)) }
    }
}
