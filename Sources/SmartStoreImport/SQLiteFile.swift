import CSQLite
import Foundation

/// A SmartStore database file opened read-only: the import never changes the file it reads.
final class SQLiteFile {
    private let handle: OpaquePointer
    /// The file's name, for messages.
    let name: String

    /// Opens `url` with `SQLITE_OPEN_READONLY`.
    /// - Throws: ``SmartStoreImportError/Code/unreadable`` when it is not a regular file or
    ///   cannot be opened.
    init(_ url: URL) throws(SmartStoreImportError) {
        name = url.lastPathComponent
        // A directory, a device or a pipe is no database: refused before SQLite reads it.
        let type = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.type] as? FileAttributeType
        guard type == .typeRegular else {
            throw SmartStoreImportError(
                .unreadable, type == nil ? "\(url.path): no such file" : "\(url.path): not a regular file")
        }
        var opened: OpaquePointer?
        let status = sqlite3_open_v2(url.path, &opened, SQLITE_OPEN_READONLY, nil)
        guard status == SQLITE_OK, let opened else {
            let reason = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(opened)
            throw SmartStoreImportError(.unreadable, "\(url.path): cannot be opened: \(reason)")
        }
        handle = opened
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs `sql` and calls `body` with each row.
    /// - Parameter table: the table the query reads, named in errors.
    /// - Throws: ``SmartStoreImportError/Code/notADatabase`` when SQLite finds no database in the
    ///   file (an encrypted one reads as noise), ``SmartStoreImportError/Code/storage`` for other
    ///   SQLite failures, and what `body` throws.
    func forEachRow(_ sql: String, table: String, _ body: (SQLiteRow) throws -> Void) throws {
        var prepared: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &prepared, nil)
        guard status == SQLITE_OK, let statement = prepared else { throw failure(status, table: table) }
        defer { sqlite3_finalize(statement) }
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return }
            guard step == SQLITE_ROW else { throw failure(step, table: table) }
            try body(SQLiteRow(statement: statement))
        }
    }

    private func failure(_ status: Int32, table: String) -> SmartStoreImportError {
        let reason = String(cString: sqlite3_errmsg(handle))
        if status & 0xff == SQLITE_NOTADB {
            return SmartStoreImportError(
                .notADatabase,
                "\(name) is not an SQLite database (\(reason)); an encrypted SmartStore must be decrypted "
                    + "with SQLCipher's sqlcipher_export first (docs/import-smartstore.md)")
        }
        return SmartStoreImportError(.storage, "\(name): reading \(table) failed: \(reason)", table: table)
    }
}

/// The current row of a statement; valid only inside the `forEachRow` call that gave it.
struct SQLiteRow {
    let statement: OpaquePointer

    /// The number of columns.
    var columnCount: Int32 {
        sqlite3_column_count(statement)
    }

    /// The name of column `column`.
    func name(_ column: Int32) -> String {
        sqlite3_column_name(statement, column).map { String(cString: $0) } ?? ""
    }

    /// Whether column `column` is NULL.
    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(statement, column) == SQLITE_NULL
    }

    /// Column `column` as an integer; `nil` when it is NULL or not an integer.
    func integer(_ column: Int32) -> Int64? {
        sqlite3_column_type(statement, column) == SQLITE_INTEGER ? sqlite3_column_int64(statement, column) : nil
    }

    /// Column `column`'s bytes as text; `nil` when it is NULL.
    func bytes(_ column: Int32) -> [UInt8]? {
        guard sqlite3_column_type(statement, column) != SQLITE_NULL else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        guard let start = sqlite3_column_text(statement, column) else { return [] }
        return Array(UnsafeBufferPointer(start: start, count: count))
    }

    /// Column `column` as a string; `nil` when it is NULL.
    func text(_ column: Int32) -> String? {
        bytes(column).map { String(decoding: $0, as: UTF8.self) }
    }
}
