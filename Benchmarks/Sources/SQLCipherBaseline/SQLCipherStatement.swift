import CSQLCipher

/// A prepared statement, finalized with its owner; one per SQL text, reused for every row.
final class SQLCipherStatement {
    private let connection: OpaquePointer
    private let handle: OpaquePointer

    /// A value to bind; `nil` binds NULL.
    enum Value {
        case text(String?)
        case integer(Int64?)
        case real(Double?)
    }

    init(_ sql: String, connection: OpaquePointer) throws {
        self.connection = connection
        var statement: OpaquePointer?
        try SQLCipherError.check(sqlite3_prepare_v2(connection, sql, -1, &statement, nil), connection)
        guard let statement else { throw SQLCipherError(code: SQLITE_MISUSE, message: "empty statement: \(sql)") }
        handle = statement
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Runs the statement once with `values` bound in order, and returns the first column of
    /// every row as text.
    @discardableResult
    func run(_ values: [Value]) throws -> [String] {
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
        var texts: [String] = []
        while true {
            let result = sqlite3_step(handle)
            if result == SQLITE_DONE { return texts }
            try SQLCipherError.check(result, connection, expected: [SQLITE_ROW])
            texts.append(sqlite3_column_text(handle, 0).map { String(cString: $0) } ?? "")
        }
    }

    private func bind(_ value: Value, at index: Int32) throws {
        let result: Int32
        switch value {
        case .text(let text?):
            result = csqlcipher_bind_text_transient(handle, index, text, -1)
        case .integer(let integer?):
            result = sqlite3_bind_int64(handle, index, integer)
        case .real(let real?):
            result = sqlite3_bind_double(handle, index, real)
        case .text(nil), .integer(nil), .real(nil):
            result = sqlite3_bind_null(handle, index)
        }
        try SQLCipherError.check(result, connection)
    }
}
