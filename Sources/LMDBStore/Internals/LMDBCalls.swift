import CLMDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One thin function per LMDB C call. Nothing else in the package imports `CLMDB`, so return
/// codes become ``LMDBError`` in exactly one place.
enum LMDBCalls {
    typealias Environment = OpaquePointer
    typealias Transaction = OpaquePointer
    typealias Cursor = OpaquePointer

    @inline(__always)
    static func check(_ code: Int32) throws(LMDBError) {
        guard code == MDB_SUCCESS else { throw LMDBError(rawValue: code) }
    }

    static func errorText(_ code: Int32) -> String {
        String(cString: mdb_strerror(code))
    }

    /// Like ``check(_:)``, and when `code` says the data file is damaged, has the environment
    /// of `transaction` write its ``DamageNote`` (when it notes damage) before throwing.
    static func check(_ code: Int32, in transaction: Transaction) throws(LMDBError) {
        guard code == MDB_SUCCESS else {
            if code == MDB_CORRUPTED || code == MDB_PAGE_NOTFOUND { noteDamage(mdb_txn_env(transaction), code) }
            throw LMDBError(rawValue: code)
        }
    }

    /// ``check(_:in:)`` for a call on `cursor`.
    static func check(_ code: Int32, on cursor: Cursor) throws(LMDBError) {
        guard code == MDB_SUCCESS else { return try check(code, in: mdb_cursor_txn(cursor)) }
    }

    private static func noteDamage(_ environment: Environment?, _ code: Int32) {
        guard let environment, let context = mdb_env_get_userctx(environment) else { return }
        Unmanaged<DamageNoteWriter>.fromOpaque(context).takeUnretainedValue().record(message: mdb_strerror(code))
    }

    // MARK: - Damage notes

    /// Has LMDB call `writer` on an assertion failure in `environment` (the corresponding LMDB
    /// functions are `mdb_env_set_userctx` and `mdb_env_set_assert`) and on damage errors.
    /// The caller keeps `writer` alive as long as the environment.
    static func environmentNoteDamage(_ environment: Environment, _ writer: DamageNoteWriter) throws(LMDBError) {
        try check(mdb_env_set_userctx(environment, Unmanaged.passUnretained(writer).toOpaque()))
        try check(
            mdb_env_set_assert(environment) { environment, message in LMDBCalls.assertionFailed(environment, message) })
    }

    /// The address of one of liblmdb's functions, which tells the fault handler where LMDB's
    /// code lies.
    static var libraryFunctionAddress: UnsafeRawPointer {
        let version:
            @convention(c) (UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?)
                -> UnsafeMutablePointer<CChar>? = mdb_version
        return unsafeBitCast(version, to: UnsafeRawPointer.self)
    }

    /// LMDB's assert callback (`MDB_assert_func`): LMDB calls `abort()` when it returns.
    private static func assertionFailed(_ environment: Environment?, _ message: UnsafePointer<CChar>?) {
        guard let environment, let context = mdb_env_get_userctx(environment) else { return }
        Unmanaged<DamageNoteWriter>.fromOpaque(context).takeUnretainedValue().record(message: message)
        DamageNoteWriter.endProcessIfAsked()
    }

    // MARK: - Environment

    static func environmentCreate() throws(LMDBError) -> Environment {
        var environment: Environment?
        try check(mdb_env_create(&environment))
        guard let environment else { throw LMDBError.invalid }
        return environment
    }

    static func environmentOpen(_ environment: Environment, path: String, flags: UInt32, mode: UInt32)
        throws(LMDBError)
    {
        try check(mdb_env_open(environment, path, flags, mdb_mode_t(mode)))
    }

    static func environmentClose(_ environment: Environment) {
        mdb_env_close(environment)
    }

    static func environmentSetMapSize(_ environment: Environment, _ bytes: Int) throws(LMDBError) {
        try check(mdb_env_set_mapsize(environment, bytes))
    }

    static func environmentSetMaxDatabases(_ environment: Environment, _ count: UInt32) throws(LMDBError) {
        try check(mdb_env_set_maxdbs(environment, MDB_dbi(count)))
    }

    static func environmentSetMaxReaders(_ environment: Environment, _ count: UInt32) throws(LMDBError) {
        try check(mdb_env_set_maxreaders(environment, count))
    }

    static func environmentInfo(_ environment: Environment) throws(LMDBError) -> (
        mapSize: Int, lastPage: Int, mapAddress: UnsafeRawPointer?
    ) {
        var info = MDB_envinfo()
        try check(mdb_env_info(environment, &info))
        return (info.me_mapsize, info.me_last_pgno, UnsafeRawPointer(info.me_mapaddr))
    }

    /// The data file's descriptor, which LMDB owns (`mdb_env_get_fd`); `-1` when LMDB has none.
    static func environmentFileDescriptor(_ environment: Environment) -> Int32 {
        var descriptor: mdb_filehandle_t = -1
        return mdb_env_get_fd(environment, &descriptor) == MDB_SUCCESS ? descriptor : -1
    }

    static func environmentPageSize(_ environment: Environment) throws(LMDBError) -> Int {
        var stat = MDB_stat()
        try check(mdb_env_stat(environment, &stat))
        return Int(stat.ms_psize)
    }

    static func environmentFlush(_ environment: Environment, force: Bool) throws(LMDBError) {
        try check(mdb_env_sync(environment, force ? 1 : 0))
    }

    static func environmentCopy(_ environment: Environment, to path: String, compact: Bool) throws(LMDBError) {
        let code = mdb_env_copy2(environment, path, compact ? UInt32(MDB_CP_COMPACT) : 0)
        if code == MDB_CORRUPTED || code == MDB_PAGE_NOTFOUND { noteDamage(environment, code) }
        try check(code)
    }

    // MARK: - Transactions

    static func transactionBegin(_ environment: Environment, readOnly: Bool) throws(LMDBError) -> Transaction {
        var transaction: Transaction?
        try check(mdb_txn_begin(environment, nil, readOnly ? UInt32(MDB_RDONLY) : 0, &transaction))
        guard let transaction else { throw LMDBError.badTransaction }
        return transaction
    }

    static func transactionCommit(_ transaction: Transaction) throws(LMDBError) {
        let environment = mdb_txn_env(transaction)
        let code = mdb_txn_commit(transaction)
        if code == MDB_CORRUPTED || code == MDB_PAGE_NOTFOUND { noteDamage(environment, code) }
        try check(code)
    }

    static func transactionAbort(_ transaction: Transaction) {
        mdb_txn_abort(transaction)
    }

    /// The id of the snapshot a read transaction sees, or of a write transaction's commit.
    static func transactionID(_ transaction: Transaction) -> UInt64 {
        UInt64(mdb_txn_id(transaction))
    }

    // MARK: - Databases

    static func databaseOpen(_ transaction: Transaction, name: String?, create: Bool) throws(LMDBError) -> UInt32 {
        var handle = MDB_dbi()
        try check(mdb_dbi_open(transaction, name, create ? UInt32(MDB_CREATE) : 0, &handle), in: transaction)
        return UInt32(handle)
    }

    static func databaseEntryCount(_ transaction: Transaction, _ database: UInt32) throws(LMDBError) -> Int {
        var stat = MDB_stat()
        try check(mdb_stat(transaction, MDB_dbi(database), &stat), in: transaction)
        return Int(stat.ms_entries)
    }

    static func databaseEmpty(_ transaction: Transaction, _ database: UInt32) throws(LMDBError) {
        try check(mdb_drop(transaction, MDB_dbi(database), 0))
    }

    static func databaseDelete(_ transaction: Transaction, _ database: UInt32) throws(LMDBError) {
        try check(mdb_drop(transaction, MDB_dbi(database), 1))
    }

    static func databaseStatistics(_ transaction: Transaction, _ database: UInt32) throws(LMDBError) -> (
        entries: Int, pages: Int, pageSize: Int
    ) {
        var stat = MDB_stat()
        try check(mdb_stat(transaction, MDB_dbi(database), &stat), in: transaction)
        return (
            Int(stat.ms_entries), stat.ms_branch_pages + stat.ms_leaf_pages + stat.ms_overflow_pages, Int(stat.ms_psize)
        )
    }

    // MARK: - Data

    /// Calls `body` with the stored value, which is valid only until the transaction writes or ends.
    /// A value reaching past the end of the data file (`extent`) is `MDB_CORRUPTED`.
    static func get<T>(
        _ transaction: Transaction, _ database: UInt32, key: [UInt8], extent: MappedFileExtent,
        _ body: (UnsafeRawBufferPointer?) throws -> T
    ) throws -> T {
        try key.withUnsafeBytes { keyBytes in
            var keyValue = MDB_val(
                mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
            var dataValue = MDB_val()
            let code = mdb_get(transaction, MDB_dbi(database), &keyValue, &dataValue)
            if code == MDB_NOTFOUND {
                try confirmMissing(key, transaction, database, extent)
                return try body(nil)
            }
            try check(code, in: transaction)
            try requireInsideFile(dataValue, extent, in: transaction)
            return try body(UnsafeRawBufferPointer(start: dataValue.mv_data, count: dataValue.mv_size))
        }
    }

    /// Confirms that `key`, which `mdb_get` did not find, is missing: a lookup from a cursor,
    /// checked against its neighbours (``seekChecked(_:atLeast:)``), must not find it either. A
    /// damaged branch page can send `mdb_get` to the wrong leaf, and a record reported missing
    /// would drop out of a query's answer silently. Only misses pay for it.
    private static func confirmMissing(
        _ key: [UInt8], _ transaction: Transaction, _ database: UInt32, _ extent: MappedFileExtent
    ) throws(LMDBError) {
        let cursor = try cursorOpen(transaction, database)
        defer { cursorClose(cursor) }
        if let found = try seekChecked(cursor, atLeast: key, extent), compare(found.key, key) == 0 {
            try check(MDB_CORRUPTED, on: cursor)
        }
    }

    static func put(_ transaction: Transaction, _ database: UInt32, key: [UInt8], value: [UInt8], flags: UInt32)
        throws(LMDBError)
    {
        let code = key.withUnsafeBytes { keyBytes in
            value.withUnsafeBytes { valueBytes in
                var keyValue = MDB_val(
                    mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
                var dataValue = MDB_val(
                    mv_size: valueBytes.count, mv_data: UnsafeMutableRawPointer(mutating: valueBytes.baseAddress))
                return mdb_put(transaction, MDB_dbi(database), &keyValue, &dataValue, flags)
            }
        }
        try check(code, in: transaction)
    }

    /// Makes room for a value of `count` bytes under `key` (`MDB_RESERVE`) and returns it, to
    /// be filled before the transaction's next write.
    static func reserve(_ transaction: Transaction, _ database: UInt32, key: [UInt8], count: Int, flags: UInt32)
        throws(LMDBError) -> UnsafeMutableRawBufferPointer
    {
        var dataValue = MDB_val(mv_size: count, mv_data: nil)
        let code = key.withUnsafeBytes { keyBytes in
            var keyValue = MDB_val(
                mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
            return mdb_put(transaction, MDB_dbi(database), &keyValue, &dataValue, flags | UInt32(MDB_RESERVE))
        }
        try check(code, in: transaction)
        return UnsafeMutableRawBufferPointer(start: dataValue.mv_data, count: count)
    }

    /// Deletes a key; returns false when it was not there.
    static func delete(_ transaction: Transaction, _ database: UInt32, key: [UInt8]) throws(LMDBError) -> Bool {
        let code = key.withUnsafeBytes { keyBytes in
            var keyValue = MDB_val(
                mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
            return mdb_del(transaction, MDB_dbi(database), &keyValue, nil)
        }
        if code == MDB_NOTFOUND { return false }
        try check(code, in: transaction)
        return true
    }

    // MARK: - Cursors

    static func cursorOpen(_ transaction: Transaction, _ database: UInt32) throws(LMDBError) -> Cursor {
        var cursor: Cursor?
        try check(mdb_cursor_open(transaction, MDB_dbi(database), &cursor), in: transaction)
        guard let cursor else { throw LMDBError.badTransaction }
        return cursor
    }

    static func cursorClose(_ cursor: Cursor) {
        mdb_cursor_close(cursor)
    }

    enum CursorMove {
        case first, last, next, previous, current
        case atLeast([UInt8])
    }

    /// Moves the cursor and copies out the entry it lands on; nil when there is none.
    static func cursorGet(_ cursor: Cursor, _ move: CursorMove, _ extent: MappedFileExtent) throws(LMDBError) -> (
        key: [UInt8], value: [UInt8]
    )? {
        try cursorMove(cursor, move, extent).map { (copy($0.key), copy($0.value)) }
    }

    /// Moves the cursor and calls `body` with the key and value it lands on, in place (valid only
    /// during `body`); returns `nil` without calling `body` when there is none.
    static func cursorVisit<T>(
        _ cursor: Cursor, _ move: CursorMove, _ extent: MappedFileExtent,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> T
    ) throws -> T? {
        guard let (key, value) = try cursorMove(cursor, move, extent) else { return nil }
        return try body(
            UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size),
            UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size))
    }

    /// Moves the cursor and copies out only the key it lands on; nil when there is none.
    static func cursorGetKey(_ cursor: Cursor, _ move: CursorMove, _ extent: MappedFileExtent) throws(LMDBError)
        -> [UInt8]?
    {
        try cursorMove(cursor, move, extent).map { copy($0.key) }
    }

    /// Moves the cursor; the key and value it lands on lie inside the data file (`extent`).
    private static func cursorMove(_ cursor: Cursor, _ move: CursorMove, _ extent: MappedFileExtent)
        throws(LMDBError) -> (key: MDB_val, value: MDB_val)?
    {
        var keyValue = MDB_val()
        var dataValue = MDB_val()
        let code: Int32
        switch move {
        case .first: code = mdb_cursor_get(cursor, &keyValue, &dataValue, MDB_FIRST)
        case .last: code = mdb_cursor_get(cursor, &keyValue, &dataValue, MDB_LAST)
        case .next: code = mdb_cursor_get(cursor, &keyValue, &dataValue, MDB_NEXT)
        case .previous: code = mdb_cursor_get(cursor, &keyValue, &dataValue, MDB_PREV)
        case .current: code = mdb_cursor_get(cursor, &keyValue, &dataValue, MDB_GET_CURRENT)
        case .atLeast(let key):
            return try seekChecked(cursor, atLeast: key, extent)
        }
        if code == MDB_NOTFOUND { return nil }
        try check(code, on: cursor)
        try requireInsideFile(keyValue, extent, on: cursor)
        try requireInsideFile(dataValue, extent, on: cursor)
        return (keyValue, dataValue)
    }

    /// Throws `MDB_CORRUPTED` (with the environment's damage note, when it notes damage) when
    /// `value` reaches past the end of the data file inside the map, where reading it would
    /// raise `SIGBUS`: a size or offset read from a damaged page (decision 0027).
    @inline(__always)
    static func requireInsideFile(_ value: MDB_val, _ extent: MappedFileExtent, in transaction: Transaction)
        throws(LMDBError)
    {
        guard extent.holds(value.mv_data, count: value.mv_size) else {
            return try check(MDB_CORRUPTED, in: transaction)
        }
    }

    /// ``requireInsideFile(_:_:in:)`` for a value `cursor` landed on.
    @inline(__always)
    static func requireInsideFile(_ value: MDB_val, _ extent: MappedFileExtent, on cursor: Cursor) throws(LMDBError) {
        guard extent.holds(value.mv_data, count: value.mv_size) else { return try check(MDB_CORRUPTED, on: cursor) }
    }

    /// `MDB_SET_RANGE`, checked against its neighbours: the key landed on is at or after `key`
    /// and the one before it is before `key`; when nothing is at or after `key`, the last key
    /// is before it.
    ///
    /// A lookup descends through the branch pages' separator keys, while moving to the next or
    /// previous entry follows the parents' positions. A damaged separator sends a lookup to the
    /// wrong leaf, and an index walk starting there would skip records silently; its neighbours
    /// show it. A misplaced landing is `MDB_CORRUPTED`, with the environment's damage note, so
    /// the next open rebuilds the file. Two more cursor moves per lookup, on the same pages.
    private static func seekChecked(_ cursor: Cursor, atLeast key: [UInt8], _ extent: MappedFileExtent)
        throws(LMDBError) -> (key: MDB_val, value: MDB_val)?
    {
        var landed = MDB_val()
        var dataValue = MDB_val()
        var neighbour = MDB_val()
        var neighbourData = MDB_val()
        func setRange() -> Int32 {
            key.withUnsafeBytes { keyBytes in
                var searchKey = MDB_val(
                    mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
                let result = mdb_cursor_get(cursor, &searchKey, &dataValue, MDB_SET_RANGE)
                landed = searchKey
                return result
            }
        }
        let code = setRange()
        if code == MDB_NOTFOUND {
            let last = mdb_cursor_get(cursor, &neighbour, &neighbourData, MDB_LAST)
            if last == MDB_SUCCESS { try requireInsideFile(neighbour, extent, on: cursor) }
            if last == MDB_SUCCESS, compare(neighbour, key) >= 0 { try check(MDB_CORRUPTED, on: cursor) }
            if last != MDB_NOTFOUND { try check(last, on: cursor) }
            return nil
        }
        try check(code, on: cursor)
        try requireInsideFile(landed, extent, on: cursor)
        if compare(landed, key) < 0 { try check(MDB_CORRUPTED, on: cursor) }
        let previous = mdb_cursor_get(cursor, &neighbour, &neighbourData, MDB_PREV)
        if previous == MDB_SUCCESS {
            try requireInsideFile(neighbour, extent, on: cursor)
            if compare(neighbour, key) >= 0 { try check(MDB_CORRUPTED, on: cursor) }
            try check(mdb_cursor_get(cursor, &landed, &dataValue, MDB_NEXT), on: cursor)
        } else if previous == MDB_NOTFOUND {
            // The first key: a failed move may leave the cursor anywhere, so land again.
            try check(setRange(), on: cursor)
        } else {
            try check(previous, on: cursor)
        }
        try requireInsideFile(landed, extent, on: cursor)
        try requireInsideFile(dataValue, extent, on: cursor)
        return (landed, dataValue)
    }

    /// LMDB's default key order: bytes compared as unsigned, then the shorter first.
    private static func compare(_ value: MDB_val, _ key: [UInt8]) -> Int {
        let bytes = UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_data == nil ? 0 : value.mv_size)
        return key.withUnsafeBytes { other in
            let shared = min(bytes.count, other.count)
            if shared > 0, let left = bytes.baseAddress, let right = other.baseAddress {
                let order = memcmp(left, right, shared)
                if order != 0 { return Int(order) }
            }
            return bytes.count - other.count
        }
    }

    static func cursorDelete(_ cursor: Cursor) throws(LMDBError) {
        try check(mdb_cursor_del(cursor, 0), on: cursor)
    }

    private static func copy(_ value: MDB_val) -> [UInt8] {
        guard value.mv_size > 0, let data = value.mv_data else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: value.mv_size))
    }

    // MARK: - Flag values, so callers need not import CLMDB

    static let flagNoSubdirectory = UInt32(MDB_NOSUBDIR)
    static let flagNoSync = UInt32(MDB_NOSYNC)
    static let flagNoThreadLocalStorage = UInt32(MDB_NOTLS)
    static let flagReadOnly = UInt32(MDB_RDONLY)
    static let flagNoReadAhead = UInt32(MDB_NORDAHEAD)
    static let putNoOverwrite = UInt32(MDB_NOOVERWRITE)
    static let putAppend = UInt32(MDB_APPEND)
}
