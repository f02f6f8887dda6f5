import CSQLCipher

/// A failed SQLCipher call: its result code and SQLCipher's message for it.
struct SQLCipherError: Error, CustomStringConvertible {
    var code: Int32
    var message: String

    var description: String {
        "SQLCipher error \(code): \(message)"
    }

    /// Throws when `code` is not one of `expected` (`SQLITE_OK` by default), with the
    /// connection's own message, which names what went wrong better than the code alone.
    static func check(_ code: Int32, _ connection: OpaquePointer?, expected: Set<Int32> = [SQLITE_OK]) throws {
        guard !expected.contains(code) else { return }
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "no message"
        throw SQLCipherError(code: code, message: message)
    }
}
