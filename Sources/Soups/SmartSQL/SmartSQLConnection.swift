import CSQLite
import LosslessJSON

/// An in-memory SQLite connection whose only tables are the soups' virtual tables.
///
/// A connection serves one smart query execution at a time, inside that execution's read
/// transaction: ``withConnection(reader:soups:usesIndexes:_:)`` hands it the execution's
/// reader, and takes it back before the transaction ends, so no transaction or cursor outlives
/// the call (LMDB's transactions belong to one thread). Between executions it waits in
/// ``SmartSQLConnectionPool``, holding no data: opening a connection and registering its
/// tables costs more than an indexed lookup itself, and so does preparing a statement, so it
/// keeps its prepared statements and its tables' plans (``SmartSQLStatementCache``). A
/// connection serves only the catalog it was made for; any change of soups or indexes makes a
/// new one, so no statement or plan outlives the catalog it was made for. Rows stream
/// from the soups through the tables, and temporary storage (sorts, `DISTINCT`, subqueries)
/// stays in memory, so an encrypted store's values are never written in clear.
final class SmartSQLConnection {
    private let handle: OpaquePointer
    private let module: UnsafeMutablePointer<sqlite3_module>
    private var tables: [SoupVirtualTable] = []
    let context = SmartQueryContext()
    /// The statements kept between executions.
    let statements = SmartSQLStatementCache()
    /// How many statements the connection has prepared: what keeping them saves, for tests.
    private(set) var preparationCount = 0
    /// The catalog the tables were made for.
    let soups: [SmartSoup]

    /// How much of the SQL an error message quotes.
    static let quotedSQLLengthMax = 300

    /// The most plans a table keeps between executions: past that, the connection forgets its
    /// statements and plans, so that the plans of queries no longer run do not pile up.
    static let keptPlanCountMax = 1_000

    /// Runs `body` with a connection over `soups` (all of `reader`'s) that reads through
    /// `reader`, then gives the connection back to the pool.
    static func withConnection<T>(
        reader: any SoupReader, soups: [SmartSoup], usesIndexes: Bool = true, _ body: (SmartSQLConnection) throws -> T
    ) throws -> T {
        let connection = try SmartSQLConnectionPool.shared.take(matching: soups) ?? SmartSQLConnection(soups: soups)
        connection.context.begin(reader: reader, usesIndexes: usesIndexes)
        for table in connection.tables { table.reset() }
        if connection.tables.contains(where: { $0.plans.count > Self.keptPlanCountMax }) {
            connection.statements.removeAll()
            for table in connection.tables { table.forgetPlans() }
        }
        defer {
            connection.context.end()
            SmartSQLConnectionPool.shared.giveBack(connection)
        }
        return try body(connection)
    }

    private init(soups: [SmartSoup]) throws {
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_MEMORY | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(":memory:", &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            sqlite3_close_v2(opened)
            throw SoupError(.storage, "SQLite could not open an in-memory connection (code \(status))")
        }
        handle = opened
        module = UnsafeMutablePointer<sqlite3_module>.allocate(capacity: 1)
        module.initialize(to: SoupTableModule.make())
        self.soups = soups
        // On a failure below, deinit closes the connection.
        try configure()
        for soup in soups { try register(soup) }
    }

    deinit {
        // The kept statements first: closing releases the modules' tables.
        statements.removeAll()
        sqlite3_close_v2(handle)
        module.deinitialize(count: 1)
        module.deallocate()
    }

    private func configure() throws {
        _ = csqlite_allow_double_quoted_strings(handle)
        let status = sqlite3_exec(handle, "PRAGMA temp_store = MEMORY", nil, nil, nil)
        guard status == SQLITE_OK else { throw failure(status, sql: "PRAGMA temp_store = MEMORY") }
    }

    /// Makes `TABLE_<n>` the soup's table. Every soup gets one, so SQL that names SmartStore's
    /// tables without braces also runs; SQLite connects only those a query uses.
    private func register(_ soup: SmartSoup) throws {
        let table = SoupVirtualTable(context: context, soup: soup)
        let status = sqlite3_create_module_v2(
            handle, soup.tableName, module, Unmanaged.passRetained(table).toOpaque(),
            { aux in aux.map { Unmanaged<SoupVirtualTable>.fromOpaque($0).release() } })
        guard status == SQLITE_OK else { throw failure(status, sql: soup.tableName) }
        tables.append(table)
    }

    // MARK: - Running SQL

    /// Every row of `sql`, each a JSON array of its columns' values.
    func rows(_ sql: String, arguments: [JSONValue]) throws -> [JSONValue] {
        try withStatement(sql, arguments: arguments) { statement in
            let columnCount = sqlite3_column_count(statement)
            let names = (0..<columnCount).map { String(cString: sqlite3_column_name(statement, $0)) }
            var rows: [JSONValue] = []
            while try step(statement, sql: sql) {
                rows.append(.array((0..<columnCount).map { Self.jsonValue(statement, $0, name: names[Int($0)]) }))
            }
            return rows
        }
    }

    /// The integer in the first column of the first row of `sql`.
    func integer(_ sql: String, arguments: [JSONValue]) throws -> Int64 {
        try withStatement(sql, arguments: arguments) { statement in
            guard try step(statement, sql: sql) else { return 0 }
            return sqlite3_column_int64(statement, 0)
        }
    }

    /// SQLite's plan for `sql`, one line per step, indented under its parent step.
    func plan(_ sql: String, arguments: [JSONValue]) throws -> [String] {
        try withStatement("EXPLAIN QUERY PLAN \(sql)", arguments: arguments) { statement in
            var depths: [Int64: Int] = [:]
            var lines: [String] = []
            while try step(statement, sql: sql) {
                let id = sqlite3_column_int64(statement, 0)
                let depth = (depths[sqlite3_column_int64(statement, 1)] ?? -1) + 1
                depths[id] = depth
                let detail = sqlite3_column_text(statement, 3).map { String(cString: $0) } ?? ""
                lines.append(String(repeating: "  ", count: depth) + detail)
            }
            return lines
        }
    }

    private func withStatement<T>(_ sql: String, arguments: [JSONValue], _ body: (OpaquePointer) throws -> T) throws
        -> T
    {
        let key = SmartSQLStatementCache.Key(sql: sql, usesIndexes: context.usesIndexes)
        let entry = try keptStatement(key) ?? prepare(key)
        let statement = entry.statement
        defer {
            // Reset, the statement holds no row, cursor or argument of this execution.
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
            statements.keep(entry, as: key)
        }
        let parameterCount = Int(sqlite3_bind_parameter_count(statement))
        guard parameterCount == arguments.count else {
            throw SoupError(
                .invalidSmartSQL,
                "the smart query has \(parameterCount) parameter(s) but \(arguments.count) argument(s) were given")
        }
        for (position, argument) in arguments.enumerated() {
            let status = bind(argument, at: Int32(position + 1), in: statement)
            guard status == SQLITE_OK else { throw failure(status, sql: sql) }
        }
        return try body(statement)
    }

    /// The statement kept for `key`, or `nil` when there is none or its plans were costed for
    /// soups of another size than the current snapshot's (it is finalized then).
    private func keptStatement(_ key: SmartSQLStatementCache.Key) throws -> SmartSQLStatementCache.Entry? {
        guard let entry = statements.take(key) else { return nil }
        do {
            let reader = try context.currentReader()
            for (number, planned) in entry.plannedRecordCounts {
                guard let soup = soups.first(where: { $0.number == number }),
                    SmartSQLStatementCache.suits(planned: planned, current: try reader.estimatedRecordCount(of: soup))
                else {
                    sqlite3_finalize(entry.statement)
                    return nil
                }
            }
            return entry
        } catch {
            sqlite3_finalize(entry.statement)
            throw error
        }
    }

    /// Prepares the statement for `key`, noting the record counts its plans are costed for.
    private func prepare(_ key: SmartSQLStatementCache.Key) throws -> SmartSQLStatementCache.Entry {
        context.startPlanning()
        preparationCount += 1
        var prepared: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, key.sql, -1, &prepared, nil)
        guard status == SQLITE_OK, let statement = prepared else {
            sqlite3_finalize(prepared)
            throw failure(status, sql: key.sql)
        }
        guard sqlite3_stmt_readonly(statement) != 0 else {
            sqlite3_finalize(statement)
            throw SoupError(.invalidSmartSQL, "Only SELECT are supported")
        }
        return SmartSQLStatementCache.Entry(statement: statement, plannedRecordCounts: context.plannedRecordCounts)
    }

    private func bind(_ value: JSONValue, at position: Int32, in statement: OpaquePointer) -> Int32 {
        switch value {
        case .null:
            return sqlite3_bind_null(statement, position)
        case .bool(let flag):
            return sqlite3_bind_int64(statement, position, flag ? 1 : 0)
        case .number(let number):
            if let integer = number.int64Value { return sqlite3_bind_int64(statement, position, integer) }
            return sqlite3_bind_double(statement, position, number.doubleValue)
        case .string(let text):
            return sqlite3_bind_text(statement, position, text, -1, csqlite_transient())
        case .array, .object:
            return sqlite3_bind_text(statement, position, value.serializedString, -1, csqlite_transient())
        }
    }

    /// Steps `statement`: `true` for a row, `false` when done.
    private func step(_ statement: OpaquePointer, sql: String) throws -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let status: throw failure(status, sql: sql)
        }
    }

    // MARK: - Values

    /// A column's value as SmartStore returns it: a `soup` column (or `soup:1`, … when a join
    /// selects several) is the record object; text, integers, reals and NULL are themselves.
    static func jsonValue(_ statement: OpaquePointer, _ column: Int32, name: String) -> JSONValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_NULL:
            return .null
        case SQLITE_INTEGER:
            return .number(JSONNumber(sqlite3_column_int64(statement, column)))
        case SQLITE_FLOAT:
            let number = sqlite3_column_double(statement, column)
            return number.isFinite ? .number(JSONNumber(number)) : .null
        default:
            // Text, and a BLOB read as its bytes in UTF-8.
            let bytes: [UInt8] =
                sqlite3_column_text(statement, column).map {
                    Array(UnsafeBufferPointer(start: $0, count: Int(sqlite3_column_bytes(statement, column))))
                } ?? []
            if name == "soup" || name.hasPrefix("soup:"), let record = try? JSONValue(parsing: bytes) {
                return record
            }
            return .string(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// Gives SQLite `text` as a column's value; SQLite copies it.
    static func resultText(_ text: String, into context: OpaquePointer?) {
        var text = text
        // Native strings are contiguous UTF-8: no copy before SQLite's.
        text.withUTF8 { buffer in resultText(buffer, into: context) }
    }

    /// Gives SQLite `bytes` as a column's UTF-8 text; SQLite copies them.
    static func resultText(_ bytes: [UInt8], into context: OpaquePointer?) {
        bytes.withUnsafeBufferPointer { resultText($0, into: context) }
    }

    /// Gives SQLite the UTF-8 text in `buffer` as a column's value; SQLite copies it
    /// (`SQLITE_TRANSIENT`), so the buffer need live only for the call.
    static func resultText(_ buffer: UnsafeBufferPointer<UInt8>, into context: OpaquePointer?) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else {
            sqlite3_result_text(context, "", 0, nil)
            return
        }
        sqlite3_result_text64(
            context, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), sqlite3_uint64(buffer.count),
            csqlite_transient(), UInt8(SQLITE_UTF8))
    }

    /// `text` in memory from `sqlite3_malloc`, which SQLite frees (error messages, index strings).
    static func sqliteString(_ text: String) -> UnsafeMutablePointer<CChar>? {
        let utf8 = Array(text.utf8)
        guard let memory = sqlite3_malloc64(sqlite3_uint64(utf8.count + 1)) else { return nil }
        let characters = memory.bindMemory(to: CChar.self, capacity: utf8.count + 1)
        for (position, byte) in utf8.enumerated() { characters[position] = CChar(bitPattern: byte) }
        characters[utf8.count] = 0
        return characters
    }

    // MARK: - Errors

    /// The error for a failed call: the one a soup table kept, else SQLite's own message.
    private func failure(_ status: Int32, sql: String) -> any Error {
        if let failure = context.failure { return failure }
        let message = String(cString: sqlite3_errmsg(handle))
        // One line: the wrapper's line breaks become spaces.
        let oneLine = String(sql.map { $0.isNewline ? " " : $0 })
        let quoted =
            oneLine.count > Self.quotedSQLLengthMax ? oneLine.prefix(Self.quotedSQLLengthMax) + "…" : oneLine[...]
        let storageCodes = [SQLITE_NOMEM, SQLITE_IOERR, SQLITE_FULL, SQLITE_CORRUPT, SQLITE_CANTOPEN]
        if storageCodes.contains(status & 0xFF) {
            return SoupError(.storage, "SQLite failed running the smart query: \(message)")
        }
        return SoupError(.invalidSmartSQL, "SQLite: \(message), in: \(quoted)")
    }
}
