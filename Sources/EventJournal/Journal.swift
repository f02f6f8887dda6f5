public import Foundation
public import LMDBStore
public import Logging
public import SyncCore

/// An append-only journal of entries in LMDB, with projections kept in step with it.
///
/// ```swift
/// let journal = try Journal(directory: url, projections: [KindCounts()], clock: SystemWallClock(), logger: logger)
/// let entry = try journal.append(JournalEntry.Draft(kind: "note.added", json: ["text": "hello"]))
/// let same = try journal.read { try $0.entry(at: entry.sequence) }
/// ```
///
/// Guarantees:
/// - Sequences start at 1 and have no gaps.
/// - An entry and every projection update it causes commit in one LMDB transaction: after a
///   crash, the journal is a prefix of what was appended and the projections are its fold.
/// - Every entry carries a CRC-32C checked on every read.
///
/// All methods are synchronous and thread-safe; writers are serialized.
public final class Journal: Sendable {
    /// The envelope and metadata layout this build reads and writes.
    public static let formatVersion: UInt32 = 1

    /// The LMDB environment holding the journal and its projections.
    public let environment: Environment
    /// The projections kept in step with the journal, in apply order.
    public let projections: [any Projection]
    let clock: any WallClock
    let logger: Logger
    let options: JournalOptions
    let entries: Database
    let meta: Database
    let kinds: Database
    let projectionDatabases: [String: Database]
    /// Appends hold it shared; an in-place rebuild holds it exclusively, so no entry is
    /// applied twice or missed while the projections are being refolded.
    let appendGate = ReadWriteLock()

    static let entriesDatabaseName = "journal.entries"
    static let metaDatabaseName = "journal.meta"
    static let kindsDatabaseName = "journal.kinds"
    static let formatVersionKey = Array("format-version".utf8)
    static let rebuildMarkerKey = Array("rebuild-in-progress".utf8)

    /// Opens (creating when missing) the journal in `directory`.
    ///
    /// Opening rebuilds, from the entries, every projection whose version changed and any
    /// rebuild a crash interrupted.
    /// - Parameters:
    ///   - projections: the projections to keep; their database names must be distinct.
    ///   - clock: where entry timestamps come from.
    ///   - logger: where rebuilds and recoveries are logged.
    /// - Throws: ``JournalError/Code/newerFormat`` or ``JournalError/Code/needsMigration`` for
    ///   a store of another format; ``JournalError/Code/storage`` when LMDB cannot open it.
    public convenience init(
        directory: URL, projections: [any Projection] = [], clock: any WallClock,
        options: JournalOptions = JournalOptions(), logger: Logger
    ) throws {
        let environment: Environment
        do {
            environment = try Environment(directory: directory, options: options.environment)
        } catch {
            throw JournalError(.storage, "cannot open the store at \(directory.path): \(error)", cause: error)
        }
        try self.init(
            environment: environment, projections: projections, clock: clock, options: options, logger: logger)
    }

    /// Opens the journal in `directory` only if a store already exists there.
    ///
    /// Tools use this so that a mistyped path is an error instead of a new, empty store.
    /// - Throws: ``JournalError/Code/missingStore`` when `directory` holds no store.
    public static func openExisting(
        directory: URL, projections: [any Projection] = [], clock: any WallClock,
        options: JournalOptions = JournalOptions(), logger: Logger
    ) throws -> Journal {
        guard FileManager.default.fileExists(atPath: directory.appendingPathComponent("data.mdb").path) else {
            throw JournalError(.missingStore, "no journal store at \(directory.path)")
        }
        return try Journal(
            directory: directory, projections: projections, clock: clock, options: options, logger: logger)
    }

    /// Opens the journal inside an existing environment.
    public init(
        environment: Environment, projections: [any Projection] = [], clock: any WallClock,
        options: JournalOptions = JournalOptions(), logger: Logger
    ) throws {
        self.environment = environment
        self.projections = projections
        self.clock = clock
        self.options = options
        self.logger = logger
        var seenProjections = Set<String>()
        var databases: [String: Database] = [:]
        do {
            entries = try environment.database(named: Self.entriesDatabaseName)
            meta = try environment.database(named: Self.metaDatabaseName)
            kinds = try environment.database(named: Self.kindsDatabaseName)
            for projection in projections {
                precondition(
                    seenProjections.insert(projection.name).inserted, "two projections named \(projection.name)")
                for name in projection.databaseNames {
                    precondition(!name.hasPrefix("journal."), "database names starting with journal. are reserved")
                    precondition(databases[name] == nil, "database \(name) is declared by two projections")
                    databases[name] = try environment.database(named: name)
                }
            }
        } catch {
            throw Self.wrap(error, "cannot open the journal's databases")
        }
        projectionDatabases = databases
        try checkFormatVersion()
        try rebuildStaleProjections()
    }

    // MARK: - Transactions

    /// Runs `body` with a writer in one write transaction and commits everything it appended.
    ///
    /// Read projection state through ``JournalWriter/transaction`` to decide what to append;
    /// the decision and the entries are then atomic. If `body` throws, nothing is stored.
    /// `body` may run more than once (see ``LMDBStore/Environment``), so keep outside side
    /// effects out of it.
    /// - Throws: ``JournalError`` for storage trouble or invalid entries, or what `body` throws.
    public func write<T>(_ body: (inout JournalWriter) throws -> T) throws -> T {
        do {
            return try appendGate.withSharedLock {
                try environment.write { transaction in
                    var writer = try JournalWriter(journal: self, transaction: transaction)
                    let result = try body(&writer)
                    try writer.finish()
                    return result
                }
            }
        } catch {
            throw Self.wrap(error, "cannot append to the journal")
        }
    }

    /// Runs `body` with a reader over one consistent snapshot.
    public func read<T>(_ body: (JournalReader) throws -> T) throws -> T {
        do {
            return try environment.read { transaction in
                try body(JournalReader(transaction: transaction, journal: self))
            }
        } catch {
            throw Self.wrap(error, "cannot read the journal")
        }
    }

    // MARK: - Conveniences

    /// Appends `drafts` in one transaction and returns the stored entries.
    @discardableResult
    public func append(_ drafts: [JournalEntry.Draft]) throws -> [JournalEntry] {
        try write { writer in
            for draft in drafts { try writer.append(draft) }
            return writer.appended
        }
    }

    /// Appends one entry and returns it.
    @discardableResult
    public func append(_ draft: JournalEntry.Draft) throws -> JournalEntry {
        try write { writer in try writer.append(draft) }
    }

    /// The sequence of the last entry, or 0 for an empty journal.
    public func lastSequence() throws -> UInt64 {
        try read { try $0.lastSequence }
    }

    /// The entry at `sequence`, or `nil`.
    public func entry(at sequence: UInt64) throws -> JournalEntry? {
        try read { try $0.entry(at: sequence) }
    }

    /// The entries in `range`, oldest first.
    public func entries(in range: ClosedRange<UInt64>) throws -> [JournalEntry] {
        try read { try $0.entries(in: range) }
    }

    /// The last `count` entries, oldest first.
    public func tail(_ count: Int) throws -> [JournalEntry] {
        try read { reader in
            let last = try reader.lastSequence
            guard last > 0, count > 0 else { return [] }
            let first = last >= UInt64(count) ? last - UInt64(count) + 1 : 1
            return try reader.entries(in: first...last)
        }
    }

    /// How many entries of `kind` the journal holds.
    public func count(of kind: JournalEntry.Kind) throws -> UInt64 {
        try read { try $0.count(of: kind) }
    }

    // MARK: - Internals

    func projectionContext(_ transaction: Transaction) -> ProjectionContext {
        ProjectionContext(transaction: transaction, databases: projectionDatabases)
    }

    /// The sequence and timestamp of the last entry; (0, epoch) for an empty journal.
    func lastEntryHead(in transaction: Transaction) throws -> (sequence: UInt64, timestamp: WallTime) {
        guard let key = try transaction.withCursor(entries, { try $0.lastKey() }) else {
            return (0, WallTime(millisecondsSinceEpoch: Int64.min))
        }
        guard let sequence = SequenceKey.decode(key) else {
            throw JournalError(.corruptEntry, "journal key of \(key.count) bytes is not a sequence number")
        }
        // Only the fixed fields, in place: decoding the whole envelope here would copy and
        // checksum a page of thousands of records before every append. Reads check the rest.
        let timestamp = try transaction.withValue(entries, key: key) { envelope in
            try JournalEntry.timestamp(
                ofEnvelope: envelope ?? UnsafeRawBufferPointer(start: nil, count: 0), expectedSequence: sequence)
        }
        return (sequence, timestamp)
    }

    private func checkFormatVersion() throws {
        let stored: UInt32? = try Self.guarded("cannot read the journal's format version") {
            try environment.read { transaction in
                try transaction.get(meta, key: Self.formatVersionKey).map { bytes in
                    bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                }
            }
        }
        guard let stored else {
            try Self.guarded("cannot record the journal's format version") {
                try environment.write { transaction in
                    var bytes: [UInt8] = []
                    bytes.appendBigEndian(Self.formatVersion)
                    try transaction.put(meta, key: Self.formatVersionKey, value: bytes)
                }
            }
            return
        }
        if stored > Self.formatVersion {
            throw JournalError(
                .newerFormat,
                "the journal at \(environment.directory.path) has format \(stored), newer than the \(Self.formatVersion) "
                    + "this SyncJournal reads; open it with a newer SyncJournal")
        }
        if stored < Self.formatVersion {
            throw JournalError(
                .needsMigration,
                "the journal at \(environment.directory.path) has format \(stored) and needs migration to format "
                    + "\(Self.formatVersion) before this SyncJournal can open it")
        }
    }

    static func wrap(_ error: any Error, _ context: String) -> any Error {
        guard let lmdbError = error as? LMDBError else { return error }
        if lmdbError.isStorageFull {
            return JournalError(.storageFull, "\(context): storage is full (\(lmdbError))", cause: lmdbError)
        }
        return JournalError(.storage, "\(context): \(lmdbError)", cause: lmdbError)
    }

    static func guarded<T>(_ context: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw wrap(error, context)
        }
    }
}
