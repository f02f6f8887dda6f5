import CSQLite
public import Foundation
public import LosslessJSON
public import Soups

/// Writes a SmartStore database file as Mobile SDK's SmartStore lays it out, for import tests.
///
/// The schema follows SmartStore's `registerSoup` (docs/import-smartstore.md): `soup_attrs`,
/// `soup_index_map`, `long_operations_status`, and per soup `TABLE_<id>(id INTEGER PRIMARY KEY
/// AUTOINCREMENT, soup, created, lastModified, TABLE_<id>_<i> …)` with one column per index but
/// json1 ones, its SQL indexes and, for full-text indexes, an FTS5 table `TABLE_<id>_fts`.
///
/// ```swift
/// let fixture = try SmartStoreFixture(url: directory.appending("smartstore.db"))
/// try fixture.registerSoup("accounts", indexSpecs: [IndexSpec(path: "Id", type: .string)])
/// let id = try fixture.insert("accounts", ["Id": "001"], created: 1, lastModified: 2)
/// fixture.close()
/// ```
public final class SmartStoreFixture {
    var handle: OpaquePointer?
    private var soupIds: [String: Int64] = [:]
    private var soupSpecs: [String: [IndexSpec]] = [:]

    /// Creates the file with SmartStore's meta tables.
    /// - Parameter url: where the database is written; an existing file is replaced.
    /// - Throws: ``SmartStoreFixtureError`` with SQLite's message.
    public convenience init(url: URL) throws {
        try? FileManager.default.removeItem(at: url)
        try self.init(opening: url)
        try execute(
            """
            CREATE TABLE soup_index_map (soupName TEXT, path TEXT, columnName TEXT, columnType TEXT);
            CREATE INDEX soup_index_map_0 on soup_index_map ( soupName );
            CREATE TABLE soup_attrs (id INTEGER PRIMARY KEY AUTOINCREMENT, soupName TEXT);
            CREATE INDEX soup_attrs_0 on soup_attrs ( soupName );
            CREATE TABLE IF NOT EXISTS long_operations_status (id INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT,
                details TEXT, status TEXT, created INTEGER, lastModified INTEGER);
            """)
    }

    /// Opens a file written before, to change it: its soups are not known to ``insert(_:_:created:lastModified:)``.
    /// - Throws: ``SmartStoreFixtureError`` when it cannot be opened.
    public convenience init(reopening url: URL) throws {
        try self.init(opening: url)
    }

    private init(opening url: URL) throws {
        var opened: OpaquePointer?
        let status = sqlite3_open_v2(url.path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        handle = opened
        guard status == SQLITE_OK else { throw SmartStoreFixtureError(message: "cannot open \(url.path)") }
        // A fixture is rewritten by every run: syncing each of thousands of inserts to disk, or
        // creating and deleting a rollback journal file for each, would only make tests slow
        // (and hold a thread of the tests' shared pool while they wait on the file system).
        try execute("PRAGMA synchronous = OFF")
        try execute("PRAGMA journal_mode = MEMORY")
    }

    deinit {
        close()
    }

    /// Closes the file; later calls fail.
    public func close() {
        sqlite3_close_v2(handle)
        handle = nil
    }

    /// Runs SQL statements, such as a `DROP TABLE` that makes the file something else.
    /// - Throws: ``SmartStoreFixtureError`` with SQLite's message.
    public func execute(_ sql: String) throws {
        var failure: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &failure) == SQLITE_OK else {
            let message = failure.map { String(cString: $0) } ?? "unknown"
            sqlite3_free(failure)
            throw SmartStoreFixtureError(message: message)
        }
    }

    /// Registers a soup as SmartStore does: its `soup_attrs` row, table, indexes and FTS table.
    /// - Returns: the soup's id, `n` in `TABLE_n`.
    @discardableResult
    public func registerSoup(_ name: String, indexSpecs: [IndexSpec]) throws -> Int64 {
        try run("INSERT INTO soup_attrs (soupName) VALUES (?)", [.string(name)])
        let soupId = sqlite3_last_insert_rowid(handle)
        let table = "TABLE_\(soupId)"
        var columns = ["id INTEGER PRIMARY KEY AUTOINCREMENT", "soup TEXT", "created INTEGER", "lastModified INTEGER"]
        var statements = ["created", "lastModified"].map { "CREATE INDEX \(table)_\($0)_idx on \(table) ( \($0) )" }
        var ftsColumns: [String] = []
        for (position, spec) in indexSpecs.enumerated() {
            let column = Self.columnName(table, position, spec)
            if spec.type != .json1 { columns.append("\(column) \(Self.columnType(spec.type))") }
            if spec.type == .fullText { ftsColumns.append(column) }
            statements.append("CREATE INDEX \(table)_\(position)_idx on \(table) ( \(column) )")
            try run(
                "INSERT INTO soup_index_map (soupName, path, columnName, columnType) VALUES (?, ?, ?, ?)",
                [.string(name), .string(spec.path), .string(column), .string(spec.type.rawValue)])
        }
        try execute("CREATE TABLE \(table) (\(columns.joined(separator: ", ")))")
        if !ftsColumns.isEmpty {
            try execute("CREATE VIRTUAL TABLE \(table)_fts USING fts5(\(ftsColumns.joined(separator: ",")))")
        }
        for statement in statements { try execute(statement) }
        soupIds[name] = soupId
        soupSpecs[name] = indexSpecs
        return soupId
    }

    /// Inserts a record as SmartStore's `create` does: the next id, `_soupEntryId` and
    /// `_soupLastModifiedDate` in the JSON, the index columns and the FTS row.
    /// - Returns: the record's `_soupEntryId`.
    @discardableResult
    public func insert(_ soup: String, _ record: JSONValue, created: Int64, lastModified: Int64) throws -> Int64 {
        guard let soupId = soupIds[soup], let specs = soupSpecs[soup], case .object(var members) = record else {
            throw SmartStoreFixtureError(message: "no soup \(soup), or the record is not an object")
        }
        let table = "TABLE_\(soupId)"
        var names = ["created", "lastModified"]
        var values: [JSONValue] = [.number(JSONNumber(created)), .number(JSONNumber(lastModified))]
        var ftsNames = ["rowid"]
        var ftsValues: [JSONValue] = []
        for (position, spec) in specs.enumerated() where spec.type != .json1 {
            let value = Self.columnValue(Self.project(record, spec.path), spec.type)
            names.append(Self.columnName(table, position, spec))
            values.append(value)
            if spec.type == .fullText {
                ftsNames.append(Self.columnName(table, position, spec))
                ftsValues.append(value)
            }
        }
        let marks = Array(repeating: "?", count: names.count).joined(separator: ", ")
        try run("INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES (\(marks))", values)
        let entryId = sqlite3_last_insert_rowid(handle)
        members[SoupStore.entryIdField] = .number(JSONNumber(entryId))
        members[SoupStore.lastModifiedDateField] = .number(JSONNumber(lastModified))
        let json = JSONValue.object(members).serializedString
        try run("UPDATE \(table) SET soup = ? WHERE id = ?", [.string(json), .number(JSONNumber(entryId))])
        if !ftsValues.isEmpty {
            let marks = Array(repeating: "?", count: ftsNames.count).joined(separator: ", ")
            try run(
                "INSERT INTO \(table)_fts (\(ftsNames.joined(separator: ", "))) VALUES (\(marks))",
                [.number(JSONNumber(entryId))] + ftsValues)
        }
        return entryId
    }

    /// Runs a query on the file, as SmartStore runs the SQL a query spec becomes.
    /// - Returns: each row's columns: integers and reals as numbers, text as strings, NULL as null.
    /// - Throws: ``SmartStoreFixtureError`` with SQLite's message.
    public func rows(_ sql: String) throws -> [[JSONValue]] {
        var prepared: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &prepared, nil) == SQLITE_OK, let statement = prepared else {
            throw SmartStoreFixtureError(message: "\(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
        defer { sqlite3_finalize(statement) }
        var rows: [[JSONValue]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append((0..<sqlite3_column_count(statement)).map { Self.value(statement, $0) })
        }
        return rows
    }

    /// Deletes a record as SmartStore's `delete` does; its id is never handed out again.
    public func delete(_ soup: String, entryId: Int64) throws {
        guard let soupId = soupIds[soup] else { throw SmartStoreFixtureError(message: "no soup \(soup)") }
        try run("DELETE FROM TABLE_\(soupId) WHERE id = ?", [.number(JSONNumber(entryId))])
    }

    /// Overwrites a record's `soup` column with raw text, for a record that does not parse.
    /// - Parameters:
    ///   - table: the soup's table, such as `TABLE_1`.
    ///   - entryId: the record's `id`.
    ///   - text: what the column holds after.
    public func setRawSoupColumn(table: String, entryId: Int64, to text: String) throws {
        try run("UPDATE \(table) SET soup = ? WHERE id = ?", [.string(text), .number(JSONNumber(entryId))])
    }
}
