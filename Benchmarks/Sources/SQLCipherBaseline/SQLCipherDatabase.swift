import CSQLCipher

/// One SQLCipher connection, keyed, in WAL mode with `synchronous = FULL`: the durability the
/// SQLite baseline and every journal commit have.
///
/// The key is a passphrase given with `PRAGMA key`, as SmartStore keys its databases; SQLCipher
/// derives the page key from it with its default settings (PBKDF2, its default iteration count
/// and page size), which this benchmark leaves alone.
final class SQLCipherDatabase {
    let connection: OpaquePointer

    init(path: String, passphrase: String) throws {
        var opened: OpaquePointer?
        let result = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        guard let opened else { throw SQLCipherError(code: result, message: "cannot open \(path)") }
        connection = opened
        try SQLCipherError.check(result, connection)
        // The key comes first: SQLCipher reads nothing before it. A passphrase holds no quote
        // here (hexadecimal digits), so it needs no escaping.
        try execute("PRAGMA key = '\(passphrase)'")
        guard !cipherVersion.isEmpty else {
            throw SQLCipherError(
                code: SQLITE_MISUSE, message: "the linked library is not SQLCipher (no cipher_version)")
        }
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = FULL")
        guard try text("PRAGMA synchronous") == "2" else {
            throw SQLCipherError(code: SQLITE_MISUSE, message: "synchronous is not FULL after setting it")
        }
    }

    deinit {
        sqlite3_close_v2(connection)
    }

    /// SQLCipher's version, empty when the library is plain SQLite.
    var cipherVersion: String {
        (try? text("PRAGMA cipher_version")) ?? ""
    }

    /// Runs `sql` (one or more statements), ignoring any rows.
    func execute(_ sql: String) throws {
        try SQLCipherError.check(sqlite3_exec(connection, sql, nil, nil, nil), connection)
    }

    /// The first column of the first row of `sql`, as text.
    func text(_ sql: String) throws -> String? {
        try SQLCipherStatement(sql, connection: connection).run([]).first
    }

    /// Runs `body` inside one transaction, committed when it returns and rolled back when it throws.
    func inTransaction(_ body: () throws -> Void) throws {
        try execute("BEGIN IMMEDIATE")
        do {
            try body()
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}
