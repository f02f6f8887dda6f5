/// A read or write transaction, valid only inside the closure it was passed to.
///
/// Get one from ``Environment/read(_:)`` or ``Environment/write(_:)``. A read transaction
/// sees one consistent snapshot for its whole life; a write transaction sees its own writes.
/// Do not let a transaction or a ``Cursor`` escape its closure.
public struct Transaction {
    let pointer: LMDBCalls.Transaction
    let environment: Environment

    /// Whether this transaction can only read.
    public let isReadOnly: Bool

    /// The value stored under `key`, or `nil`.
    ///
    /// The corresponding LMDB function is `mdb_get`.
    /// - Complexity: O(log n).
    public func get(_ database: Database, key: [UInt8]) throws -> [UInt8]? {
        try withValue(database, key: key) { $0.map { Array($0) } }
    }

    /// Calls `body` with the stored bytes under `key` (or `nil`) without copying them.
    ///
    /// The buffer points into the memory map (or, for a sealed database, at the opened value,
    /// which may be a copy): it is valid only during `body`.
    /// - Throws: the sealer's error when a sealed value fails to open.
    public func withValue<T>(_ database: Database, key: [UInt8], _ body: (UnsafeRawBufferPointer?) throws -> T)
        throws -> T
    {
        try check(database)
        guard database.isSealed, let sealer = environment.sealer else {
            return try LMDBCalls.get(pointer, database.handle, key: key, extent: environment.extent, body)
        }
        // `body` runs inside the get: a sealer that can open in place hands it the stored bytes.
        return try LMDBCalls.get(pointer, database.handle, key: key, extent: environment.extent) { sealed in
            guard let sealed else { return try body(nil) }
            return try key.withUnsafeBytes { key in
                try sealer.withOpened(sealed, key: key, database: database.name) { try body($0) }
            }
        }
    }

    /// The environment's ``ValueSealer/keyedDigest(of:)`` of `bytes`, or `nil` when the
    /// environment seals nothing.
    public func keyedDigest(of bytes: [UInt8]) -> [UInt8]? {
        environment.sealer?.keyedDigest(of: bytes)
    }

    /// Stores `value` under `key`, replacing what was there.
    ///
    /// The corresponding LMDB function is `mdb_put`.
    /// - Parameters:
    ///   - database: the database to write.
    ///   - key: the key; its length must be within LMDB's key size limit.
    ///   - value: the bytes to store.
    ///   - options: ``PutOptions/append`` is a fast path for keys greater than every stored key.
    /// - Throws: ``LMDBError/keyExists`` with ``PutOptions/noOverwrite`` when the key exists.
    /// - Complexity: O(log n).
    public func put(_ database: Database, key: [UInt8], value: [UInt8], options: PutOptions = []) throws {
        precondition(!isReadOnly, "put in a read-only transaction")
        try check(database)
        if let fault = environment.faults.take(.put) { throw fault }
        if database.isSealed, let sealer = environment.inPlaceSealer {
            // Sealed straight into the page: no sealed copy on the heap.
            let count = sealer.sealedByteCount(forValueByteCount: value.count)
            let output = try LMDBCalls.reserve(
                pointer, database.handle, key: key, count: count, flags: options.rawValue)
            key.withUnsafeBytes { key in
                value.withUnsafeBytes { sealer.seal($0, key: key, database: database.name, into: output) }
            }
        } else if database.isSealed, let sealer = environment.sealer {
            let sealed = try key.withUnsafeBytes { key in
                try value.withUnsafeBytes { try sealer.seal($0, key: key, database: database.name) }
            }
            try LMDBCalls.put(pointer, database.handle, key: key, value: sealed, flags: options.rawValue)
        } else {
            try LMDBCalls.put(pointer, database.handle, key: key, value: value, flags: options.rawValue)
        }
    }

    /// Stores under `key` the `byteCount` bytes that `write` writes, written straight into
    /// LMDB's page (`MDB_RESERVE`) when the database's values are not sealed, so a large value
    /// is never built on the heap and copied. A sealed database gets them through
    /// ``put(_:key:value:options:)``.
    ///
    /// - Parameters:
    ///   - database: where to store the value.
    ///   - key: the value's key.
    ///   - byteCount: the value's size.
    ///   - options: as for ``put(_:key:value:options:)``.
    ///   - write: fills its buffer, of exactly `byteCount` bytes, whole; it runs before any
    ///     other write of the transaction.
    /// - Returns: what `write` returns.
    public func put<T>(
        _ database: Database, key: [UInt8], byteCount: Int, options: PutOptions = [],
        writing write: (UnsafeMutableRawBufferPointer) -> T
    ) throws -> T {
        if database.isSealed, environment.sealer != nil {
            var result: T?
            let value = [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, count in
                result = write(UnsafeMutableRawBufferPointer(buffer))
                count = byteCount
            }
            try put(database, key: key, value: value, options: options)
            return result!
        }
        precondition(!isReadOnly, "put in a read-only transaction")
        try check(database)
        if let fault = environment.faults.take(.put) { throw fault }
        return write(
            try LMDBCalls.reserve(pointer, database.handle, key: key, count: byteCount, flags: options.rawValue))
    }

    /// Deletes `key`; returns whether it was there. The corresponding LMDB function is `mdb_del`.
    @discardableResult
    public func delete(_ database: Database, key: [UInt8]) throws -> Bool {
        precondition(!isReadOnly, "delete in a read-only transaction")
        try check(database)
        return try LMDBCalls.delete(pointer, database.handle, key: key)
    }

    /// Removes every entry of `database`, keeping the database. The corresponding LMDB call is
    /// `mdb_drop(…, 0)`.
    public func clear(_ database: Database) throws {
        precondition(!isReadOnly, "clear in a read-only transaction")
        try check(database)
        try LMDBCalls.databaseEmpty(pointer, database.handle)
    }

    /// Deletes `database` from the environment, with its entries; its handle is closed when the
    /// transaction commits. The corresponding LMDB call is `mdb_drop(…, 1)`.
    public func drop(_ database: Database) throws {
        precondition(!isReadOnly, "drop in a read-only transaction")
        try check(database)
        try LMDBCalls.databaseDelete(pointer, database.handle)
    }

    /// Deletes the named database `name` and its entries when it exists; returns whether it did.
    ///
    /// For databases this process has no handle for (a store being converted). The
    /// corresponding LMDB calls are `mdb_dbi_open` and `mdb_drop(…, 1)`.
    @discardableResult
    public func dropDatabase(named name: String) throws -> Bool {
        precondition(!isReadOnly, "drop in a read-only transaction")
        let handle: UInt32
        do {
            handle = try LMDBCalls.databaseOpen(pointer, name: name, create: false)
        } catch {
            if error == .notFound { return false }
            throw error
        }
        try LMDBCalls.databaseDelete(pointer, handle)
        return true
    }

    /// The names of the named databases in the environment, in byte order.
    ///
    /// They are the keys of LMDB's main database. The corresponding LMDB calls are
    /// `mdb_dbi_open(NULL)` and a cursor over it.
    public func databaseNames() throws -> [String] {
        let main = try LMDBCalls.databaseOpen(pointer, name: nil, create: false)
        let cursor = try LMDBCalls.cursorOpen(pointer, main)
        defer { LMDBCalls.cursorClose(cursor) }
        var names: [String] = []
        var entry = try LMDBCalls.cursorGetKey(cursor, .first, environment.extent)
        while let key = entry {
            names.append(String(decoding: key, as: UTF8.self))
            entry = try LMDBCalls.cursorGetKey(cursor, .next, environment.extent)
        }
        return names
    }

    /// How many entries `database` holds and how many bytes of pages they take.
    /// The corresponding LMDB function is `mdb_stat`.
    public func statistics(_ database: Database) throws -> DatabaseStatistics {
        try check(database)
        let stat = try LMDBCalls.databaseStatistics(pointer, database.handle)
        return DatabaseStatistics(entryCount: stat.entries, pageBytes: stat.pages * stat.pageSize)
    }

    /// The number of entries in `database`. The corresponding LMDB function is `mdb_stat`.
    public func entryCount(_ database: Database) throws -> Int {
        try check(database)
        return try LMDBCalls.databaseEntryCount(pointer, database.handle)
    }

    /// Opens a cursor on `database` for the duration of `body`.
    ///
    /// The corresponding LMDB functions are `mdb_cursor_open` and `mdb_cursor_close`.
    public func withCursor<T>(_ database: Database, _ body: (Cursor) throws -> T) throws -> T {
        try check(database)
        let cursor = try LMDBCalls.cursorOpen(pointer, database.handle)
        defer { LMDBCalls.cursorClose(cursor) }
        let sealer = database.isSealed ? environment.sealer : nil
        return try body(
            Cursor(pointer: cursor, sealer: sealer, databaseName: database.name, extent: environment.extent))
    }

    private func check(_ database: Database) throws {
        // A handle from another environment would silently address a different table.
        precondition(
            database.environmentIdentifier == ObjectIdentifier(environment),
            "database \(database.name) belongs to another environment")
    }
}

/// Options for ``Transaction/put(_:key:value:options:)``.
public struct PutOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Fail with ``LMDBError/keyExists`` instead of replacing (`MDB_NOOVERWRITE`).
    public static let noOverwrite = PutOptions(rawValue: LMDBCalls.putNoOverwrite)
    /// The key sorts after every stored key: skip the search (`MDB_APPEND`). Fails with
    /// ``LMDBError/keyExists`` when it does not.
    public static let append = PutOptions(rawValue: LMDBCalls.putAppend)
}
