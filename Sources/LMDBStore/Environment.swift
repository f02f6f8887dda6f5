public import Foundation
import Synchronization

/// An LMDB environment: one directory holding a memory-mapped file of named databases.
///
/// ```swift
/// let environment = try Environment(directory: url)
/// let users = try environment.database(named: "users")
/// try environment.write { transaction in
///     try transaction.put(users, key: Array("ada".utf8), value: Array("1815".utf8))
/// }
/// let year = try environment.read { try $0.get(users, key: Array("ada".utf8)) }
/// ```
///
/// ## Rules for transactions
///
/// 1. **Closures are synchronous.** LMDB ties a write transaction to the thread that began it;
///    an `await` inside could resume on another thread. The closures here cannot `await`, so
///    this cannot go wrong. Async code calls them from a task and accepts the short block.
/// 2. **Nothing escapes.** A ``Transaction`` or ``Cursor`` used after its closure returns
///    points at freed memory. Return copied values (`[UInt8]`, your own structs) instead.
/// 3. **A write closure may run more than once.** When the map is full, the transaction is
///    aborted, the map grown and the closure run again from the start. Keep side effects
///    outside the store (sending requests, printing) out of write closures.
///
/// 4. **Do not write from inside a read closure on the same thread.** Growing the map waits
///    for every transaction of the process to end, including the read that is waiting for
///    the write: a deadlock. Finish reading first, or write from the read's caller.
///
/// Writers are serialized within the process; readers never block writers and see a
/// consistent snapshot. Read transactions use `MDB_NOTLS`, so they are not tied to a thread.
public final class Environment: Sendable {
    /// The directory holding `data.mdb` and `lock.mdb`.
    public let directory: URL
    /// The directory's path, standardized once: the key of its reader table's epoch
    /// (``PinnedSnapshot/isHeld``), read before every projection write that relies on a pin.
    let readerTableKey: String
    /// The options the environment was opened with.
    public let options: EnvironmentOptions
    /// What seals and opens the values of its databases, or `nil` to store them as given.
    public let sealer: (any ValueSealer)?
    /// ``sealer`` when it seals in place, found once rather than cast at every put.
    let inPlaceSealer: (any InPlaceValueSealer)?

    // @unchecked-free: the pointer is only used through LMDB calls, which are thread-safe for an
    // environment handle; `nonisolated(unsafe)` documents that the compiler cannot see this.
    nonisolated(unsafe) let pointer: LMDBCalls.Environment
    /// Serializes this process's writers. (A `Mutex` would require a `sending` result.)
    let writerLock = ReadWriteLock()
    /// Transactions hold it shared; growing the map holds it exclusively.
    let mapLock = ReadWriteLock()
    private let databases = Mutex([String: Database]())
    private let currentMapSize: Mutex<Int>
    /// Writes the damage note LMDB's callbacks ask for; kept as long as the environment, whose
    /// user context points at it (``EnvironmentOptions/notesDamage``).
    let damageNoteWriter: DamageNoteWriter?
    /// Where the map lies and how much of it the data file backs: every key and value read is
    /// checked against it before it is read (decision 0027).
    let extent: MappedFileExtent
    /// Failures planted by tests. Reserved for tests: do not use.
    package let faults = LMDBFaults()

    /// Opens the environment in `directory`, creating the directory (mode 0700) when missing.
    ///
    /// The corresponding LMDB functions are `mdb_env_create`, `mdb_env_set_mapsize`,
    /// `mdb_env_set_maxdbs`, `mdb_env_set_maxreaders` and `mdb_env_open`.
    /// - Parameters:
    ///   - directory: the folder holding `data.mdb` and `lock.mdb`.
    ///   - options: the map size and its growth, sync at commit, the reader and database limits
    ///     and the files' mode.
    ///   - sealer: seals every value written and opens every value read, in the databases it
    ///     says it seals (encryption at rest); `nil` stores values as given.
    /// - Throws: ``LMDBError`` when LMDB refuses (for example ``LMDBError/invalid`` for a file
    ///   that is not an LMDB store), or a Foundation error when the directory cannot be made.
    public init(
        directory: URL, options: EnvironmentOptions = EnvironmentOptions(), sealer: (any ValueSealer)? = nil
    ) throws {
        self.directory = directory
        readerTableKey = directory.standardizedFileURL.path
        self.options = options
        self.sealer = sealer
        inPlaceSealer = sealer as? any InPlaceValueSealer
        if !options.isReadOnly {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let pointer = try LMDBCalls.environmentCreate()
        do {
            try LMDBCalls.environmentSetMapSize(pointer, options.mapSizeBytes)
            try LMDBCalls.environmentSetMaxDatabases(pointer, options.namedDatabaseCountMax)
            try LMDBCalls.environmentSetMaxReaders(pointer, options.readerCountMax)
            var flags = LMDBCalls.flagNoThreadLocalStorage
            if !options.flushesOnCommit { flags |= LMDBCalls.flagNoSync }
            if options.isReadOnly { flags |= LMDBCalls.flagReadOnly }
            try LMDBCalls.environmentOpen(pointer, path: directory.path, flags: flags, mode: options.fileMode)
            damageNoteWriter = options.notesDamage ? DamageNoteWriter(directory: directory.path) : nil
            if let damageNoteWriter {
                try LMDBCalls.environmentNoteDamage(pointer, damageNoteWriter)
                DamageNoteWriter.installFaultHandlers(libraryFunction: LMDBCalls.libraryFunctionAddress)
            }
            // Another process may have grown the map already; adopt the size in the file.
            let info = try LMDBCalls.environmentInfo(pointer)
            currentMapSize = Mutex(max(info.mapSize, options.mapSizeBytes))
            damageNoteWriter?.noteMap(address: info.mapAddress, size: info.mapSize)
            extent = MappedFileExtent(descriptor: LMDBCalls.environmentFileDescriptor(pointer))
            extent.noteMap(size: info.mapSize)
        } catch {
            LMDBCalls.environmentClose(pointer)
            throw error
        }
        self.pointer = pointer
        Self.advanceReaderTableEpoch(of: readerTableKey)
    }

    deinit {
        LMDBCalls.environmentClose(pointer)
        Self.advanceReaderTableEpoch(of: readerTableKey)
    }

    /// The current size of the memory map, in bytes.
    public var mapSizeBytes: Int {
        currentMapSize.withLock { $0 }
    }

    /// The bytes of the data file in use, free pages among them: the extent up to the last
    /// page written. Cheap: no transaction. The corresponding LMDB functions are `mdb_env_info`
    /// and `mdb_env_stat`.
    public func usedBytes() throws -> Int {
        let info = try LMDBCalls.environmentInfo(pointer)
        return (info.lastPage + 1) * (try LMDBCalls.environmentPageSize(pointer))
    }

    /// Opens (creating when missing) the named database `name`.
    ///
    /// Handles are cached: asking twice returns the same handle. Opening needs a write
    /// transaction of its own, so open databases before, not inside, a transaction closure.
    /// The corresponding LMDB function is `mdb_dbi_open`.
    /// - Throws: ``LMDBError/databasesFull`` past ``EnvironmentOptions/namedDatabaseCountMax``.
    public func database(named name: String) throws -> Database {
        if let cached = databases.withLock({ $0[name] }) { return cached }
        let environmentIdentifier = ObjectIdentifier(self)
        let isSealed = sealer?.seals(databaseNamed: name) ?? false
        if options.isReadOnly {
            let database = try openExistingDatabase(named: name, isSealed: isSealed)
            databases.withLock { $0[name] = database }
            return database
        }
        // Opening happens in its own committed write transaction: a handle opened in a
        // transaction that later aborts would be closed with it.
        let database = try write { transaction in
            let handle = try LMDBCalls.databaseOpen(transaction.pointer, name: name, create: true)
            return Database(
                name: name, handle: handle, environmentIdentifier: environmentIdentifier, isSealed: isSealed)
        }
        databases.withLock { $0[name] = database }
        return database
    }

    /// Opens an existing database in a read-only environment: a read transaction that is
    /// committed, since LMDB keeps a handle opened in a transaction only when it commits.
    private func openExistingDatabase(named name: String, isSealed: Bool) throws -> Database {
        try mapLock.withSharedLock {
            try blamingFaults {
                let transaction = try LMDBCalls.transactionBegin(pointer, readOnly: true)
                let handle: UInt32
                do {
                    handle = try LMDBCalls.databaseOpen(transaction, name: name, create: false)
                } catch {
                    LMDBCalls.transactionAbort(transaction)
                    throw error
                }
                try LMDBCalls.transactionCommit(transaction)
                return Database(
                    name: name, handle: handle, environmentIdentifier: ObjectIdentifier(self), isSealed: isSealed)
            }
        }
    }

    /// Runs `body` in a read-only transaction and returns its result.
    ///
    /// The corresponding LMDB functions are `mdb_txn_begin(MDB_RDONLY)` and `mdb_txn_abort`.
    /// - Throws: ``LMDBError/readersFull`` when every reader slot is taken, or what `body` throws.
    public func read<T>(_ body: (Transaction) throws -> T) throws -> T {
        var adoptedResize = false
        while true {
            do {
                return try mapLock.withSharedLock {
                    if let fault = faults.take(.begin) { throw fault }
                    let transaction = try LMDBCalls.transactionBegin(pointer, readOnly: true)
                    defer { LMDBCalls.transactionAbort(transaction) }
                    return try blamingFaults {
                        try body(Transaction(pointer: transaction, environment: self, isReadOnly: true))
                    }
                }
            } catch let error as LMDBError where error == .mapResized && !adoptedResize {
                adoptedResize = true
                try adoptMapSizeFromFile()
            }
        }
    }

    /// Runs `body` in a write transaction and commits it when `body` returns; aborts it when
    /// `body` throws.
    ///
    /// When the map is full the transaction is aborted, the map doubled (up to
    /// ``EnvironmentOptions/mapSizeMaxBytes``) and `body` run again, at most
    /// ``EnvironmentOptions/mapFullRetryCountMax`` times. See the rules in the type's overview.
    ///
    /// The corresponding LMDB functions are `mdb_txn_begin`, `mdb_txn_commit` and `mdb_txn_abort`.
    /// - Throws: ``LMDBError/mapFull`` when the map cannot grow enough, other ``LMDBError``s,
    ///   or what `body` throws (the transaction is then aborted).
    public func write<T>(_ body: (Transaction) throws -> T) throws -> T {
        try writerLock.withExclusiveLock {
            var attempt = 0
            var adoptedResize = false
            while true {
                do {
                    return try mapLock.withSharedLock { try runWriteTransaction(body) }
                } catch let error as WriteBeginFailure where error.code == .mapResized && !adoptedResize {
                    adoptedResize = true
                    try adoptMapSizeFromFile()
                } catch let error as WriteBeginFailure {
                    throw error.code
                } catch let error as LMDBError where error == .mapFull && attempt < options.mapFullRetryCountMax {
                    attempt += 1
                    try growMap()
                } catch let error as LMDBError where error == .mapResized && !adoptedResize {
                    adoptedResize = true
                    try adoptMapSizeFromFile()
                }
            }
        }
    }

    /// Forces buffered commits to disk; useful after writes with
    /// ``EnvironmentOptions/flushesOnCommit`` off. The corresponding LMDB function is `mdb_env_sync`.
    public func flush() throws {
        try LMDBCalls.environmentFlush(pointer, force: true)
    }

    /// Writes a consistent copy of the environment into the empty directory `destination`.
    /// The corresponding LMDB function is `mdb_env_copy2`.
    public func copy(to destination: URL, compact: Bool = true) throws {
        try FileManager.default.createDirectory(
            at: destination, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try blamingFaults { try LMDBCalls.environmentCopy(pointer, to: destination.path, compact: compact) }
    }

    func runWriteTransaction<T>(_ body: (Transaction) throws -> T) throws -> T {
        try blamingFaults {
            let transaction: LMDBCalls.Transaction
            do {
                if let fault = faults.take(.begin) { throw fault }
                transaction = try LMDBCalls.transactionBegin(pointer, readOnly: false)
            } catch let error as LMDBError {
                throw WriteBeginFailure(code: error)
            }
            let result: T
            do {
                result = try body(Transaction(pointer: transaction, environment: self, isReadOnly: false))
            } catch {
                LMDBCalls.transactionAbort(transaction)
                throw error
            }
            if let fault = faults.take(.commit) {
                LMDBCalls.transactionAbort(transaction)
                throw fault
            }
            CrashPlan.reach(.beforeCommit, folderName: directory.lastPathComponent)
            // mdb_txn_commit frees the transaction whether or not it succeeds.
            try LMDBCalls.transactionCommit(transaction)
            CrashPlan.reach(.afterCommit, folderName: directory.lastPathComponent)
            return result
        }
    }

    /// Another process grew the map beyond ours (`MDB_MAP_RESIZED`): adopt the size recorded in
    /// the file. Size 0 tells LMDB to do exactly that; the exclusive lock guarantees that no
    /// transaction of this process is active, as `mdb_env_set_mapsize` requires.
    func adoptMapSizeFromFile() throws {
        try mapLock.withExclusiveLock {
            try LMDBCalls.environmentSetMapSize(pointer, 0)
            let info = try LMDBCalls.environmentInfo(pointer)
            currentMapSize.withLock { $0 = info.mapSize }
            damageNoteWriter?.noteMap(address: info.mapAddress, size: info.mapSize)
            extent.noteMap(size: info.mapSize)
        }
    }

    /// Doubles the map, up to ``EnvironmentOptions/mapSizeMaxBytes``.
    ///
    /// Reserved for code that runs its own retries (``writeOnce(_:)``): do not call it while a
    /// transaction of this environment is open on the same thread.
    /// - Throws: ``LMDBError/mapFull`` when the map is already as large as allowed.
    package func growMap() throws {
        try mapLock.withExclusiveLock {
            let current = currentMapSize.withLock { $0 }
            guard current < options.mapSizeMaxBytes else { throw LMDBError.mapFull }
            let grown = min(current * 2, options.mapSizeMaxBytes)
            try LMDBCalls.environmentSetMapSize(pointer, grown)
            currentMapSize.withLock { $0 = grown }
            let info = try LMDBCalls.environmentInfo(pointer)
            damageNoteWriter?.noteMap(address: info.mapAddress, size: info.mapSize)
            extent.noteMap(size: info.mapSize)
        }
    }

    /// Runs `body` with the calling thread's faults blamable on this environment when it notes
    /// damage (``DamageNote``); otherwise it changes nothing. Every transaction runs in it.
    func blamingFaults<T, Failure>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        try DamageNoteWriter.blamingFaults(on: damageNoteWriter, body)
    }
}
