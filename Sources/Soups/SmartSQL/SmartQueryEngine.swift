import LosslessJSON

/// Runs smart queries as SmartStore runs them: converted by ``SmartSQLConverter``, wrapped in
/// `SELECT * FROM (…) LIMIT offset, size` for a page and `SELECT count(*) FROM (…)` for a
/// count, with `?` arguments bound, on a ``SmartSQLConnection`` over one reader.
struct SmartQueryEngine {
    let reader: any SoupReader
    /// `false` only in tests: every table scans (see ``SmartQueryContext/usesIndexes``).
    var usesIndexes = true

    /// One page of rows, each a JSON array of the row's values.
    func page(_ smartSQL: String, arguments: [JSONValue], pageSize: Int, pageIndex: Int) throws -> [JSONValue] {
        let soups = try reader.soups()
        let sql = try Self.pagedSQL(convertedBody(smartSQL, soups), pageSize: pageSize, pageIndex: pageIndex)
        return try withConnection(soups) { try $0.rows(sql, arguments: arguments) }
    }

    /// How many rows the query gives, ignoring paging.
    func count(_ smartSQL: String, arguments: [JSONValue]) throws -> Int {
        let soups = try reader.soups()
        let sql = "SELECT count(*) FROM (\n\(try convertedBody(smartSQL, soups))\n)"
        return try withConnection(soups) { Int(clamping: try $0.integer(sql, arguments: arguments)) }
    }

    /// The SQL that runs for the page, then SQLite's plan for it, one step per line.
    func explain(_ smartSQL: String, arguments: [JSONValue], pageSize: Int, pageIndex: Int) throws -> [String] {
        let soups = try reader.soups()
        let sql = try Self.pagedSQL(convertedBody(smartSQL, soups), pageSize: pageSize, pageIndex: pageIndex)
        let plan = try withConnection(soups) { try $0.plan(sql, arguments: arguments) }
        return [String(sql.map { $0 == "\n" ? " " : $0 })] + plan
    }

    private func withConnection<T>(_ soups: [SmartSoup], _ body: (SmartSQLConnection) throws -> T) throws -> T {
        try SmartSQLConnection.withConnection(reader: reader, soups: soups, usesIndexes: usesIndexes, body)
    }

    /// The converted query wrapped for one page, as SmartStore's `limitRawQuery` wraps it.
    private static func pagedSQL(_ sql: String, pageSize: Int, pageIndex: Int) throws -> String {
        let offset = try QueryEngine.offset(pageSize: pageSize, pageIndex: pageIndex)
        return "SELECT * FROM (\n\(sql)\n) LIMIT \(offset), \(pageSize)"
    }

    /// The converted query, ready to wrap: without the `;` that would end it inside the wrapper.
    /// The wrapper puts it on lines of its own, so a trailing `--` comment ends there.
    private func convertedBody(_ smartSQL: String, _ soups: [SmartSoup]) throws -> String {
        var sql = try SmartSQLConverter(soups: soups).convert(smartSQL)[...]
        while let last = sql.last, last.isWhitespace || last == ";" { sql.removeLast() }
        return String(sql)
    }
}
