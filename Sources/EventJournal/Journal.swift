public import Determinism
public import Foundation
public import LMDBStore
public import Logging
import Synchronization

/// An append-only journal of entries in LMDB, and the projections folded from it.
///
/// ```swift
/// let journal = try Journal(directory: url, projections: [KindCounts()], clock: SystemWallClock(), logger: logger)
/// let entry = try journal.append(JournalEntry.Draft(kind: "note.added", json: ["text": "hello"]))
/// let same = try journal.read { try $0.entry(at: entry.sequence) }
/// ```
///
/// Guarantees:
/// - Sequences start at 1 and have no gaps. An append is on disk when it returns: the journal
///   is the one write that is synced at every commit.
/// - The projections are checkpointed state: always the fold of a prefix of the journal,
///   never ahead of it, and folded to the journal's end before this journal reads them. They
///   are committed without a sync right after the entries; after a crash they are recovered
///   from their last trustworthy state and the journal's tail (see ``openingReport``).
/// - Every entry carries a CRC-32C checked on every read.
///
/// All methods are synchronous and thread-safe; writers are serialized, across processes too.
public final class Journal: Sendable {
    /// The layout this build reads and writes: 4 may hold compressed entries (decision 0029);
    /// 3 may begin at a horizon, after compaction (decision 0005); 2 keeps the journal and the
    /// projections in two environments (decision 0003). Stores of 2 and 3 are read as they are
    /// and recorded as 4 when opened for writing; 1 kept both in one, and is converted on open.
    public static let formatVersion: UInt32 = 4

    /// Where the store's parts are.
    public let layout: StoreLayout
    /// The LMDB environment holding the entries; synced at every commit.
    public let journalEnvironment: Environment
    /// The LMDB environment holding the projections; never synced at commit.
    public let projectionEnvironment: Environment
    /// The projections folded from the journal, in apply order.
    public let projections: [any Projection]
    /// Whether the store is encrypted (opened with ``JournalOptions/encryption``).
    public var isEncrypted: Bool {
        journalEnvironment.sealer != nil
    }

    /// What opening the store found and did.
    public var openingReport: OpeningReport {
        lifecycle.withLock { $0.openingReport }
    }
    let clock: any WallClock
    let logger: Logger
    let options: JournalOptions
    let entries: Database
    let meta: Database
    let store: ProjectionStore
    /// This boot's identity, recorded before projections are written without a sync.
    let bootIdentifier: String
    /// Appends hold it shared; an in-place rebuild holds it exclusively, so no entry is
    /// applied twice or missed while the projections are being refolded.
    let appendGate = ReadWriteLock()
    let lifecycle: Mutex<Lifecycle>
    /// Held shared while the journal lives, so a key rotation never runs beside it.
    let storeLock: StoreLock
    /// Who observes this journal; woken after each commit (decision 0004).
    let observers = JournalObservers()
    /// The scratch copy of the projections a read-only journal folds into, removed when it
    /// closes; `nil` when it reads the store's own (decision 0024).
    let scratchProjectionDirectory: URL?

    static let entriesDatabaseName = "journal.entries"
    static let metaDatabaseName = "journal.meta"
    static let kindsDatabaseName = ProjectionStore.kindsDatabaseName
    static let formatVersionKey = Array("format-version".utf8)
    /// The boot identity under which projections were last written without a sync; absent
    /// after they were synced on close.
    static let unsyncedBootKey = Array("projections-unsynced-boot".utf8)
    /// Incremented each time the projections are restored or rebuilt from scratch, so
    /// processes opening together repair them once.
    static let repairGenerationKey = Array("projections-repair-generation".utf8)
    static let lastCheckpointKey = Array("last-checkpoint".utf8)

    /// What a journal instance is doing beyond its storage.
    struct Lifecycle {
        var openingReport: OpeningReport
        var isClosed = false
        /// The projections' last commit failed after the journal's: fold the tail before the
        /// next read.
        var tailPending = false
        /// What met a damaged page of the projections in this process, once LMDB's note about
        /// it is on disk (decision 0013). Reads and writes then fail at once until the store is
        /// opened again, which rebuilds them: folding into a damaged file can spread the damage,
        /// and each write folded the ever longer tail into it again.
        var projectionDamage: String?
        /// The timestamp of the first entry kept, by its sequence: the age check of automatic
        /// compaction needs it after every write, and an entry never changes, so it is read once
        /// per horizon instead of decoding (or, encrypted, opening) a whole page each time.
        var firstEntryTimestamp: (sequence: UInt64, timestamp: WallTime)?
        /// This process's pin on the projections' recorded snapshot (decision 0014): taken
        /// before its first projection write, replaced as the policy asks.
        var snapshotPin: SnapshotPin?
    }

    /// Opens (creating when missing) the store in `directory`.
    ///
    /// Opening converts a store of format 1, checks that the projections can be trusted (they
    /// are not when the machine restarted after they were written without a sync, or when they
    /// are missing, damaged or of other versions), restores them from the newest checkpoint or
    /// rebuilds them when not, and folds every entry they have not folded yet. Nothing is read
    /// before that. With ``JournalOptions/isReadOnly`` it does all of this without writing to
    /// the store: what must be restored or folded is, in a scratch copy (decision 0024).
    /// - Parameters:
    ///   - directory: the store's directory (``StoreLayout``); its `journal/` folder is accepted too.
    ///   - projections: the projections to keep; their database names must be distinct.
    ///   - clock: where entry timestamps come from.
    ///   - options: LMDB, checkpoint, retention and boot identity settings.
    ///   - logger: where recoveries and checkpoints are logged.
    /// - Throws: ``JournalError/Code/newerFormat`` for a store of a newer format;
    ///   ``JournalError/Code/damagedJournal`` when the journal's data file is truncated or
    ///   damaged (checked before LMDB maps it); ``JournalError/Code/storage`` when LMDB cannot
    ///   open it.
    public init(
        directory: URL, projections: [any Projection] = [], clock: any WallClock,
        options: JournalOptions = JournalOptions(), logger: Logger
    ) throws {
        let storeLayout = StoreLayout(directory: directory)
        storeLock = try Self.guarded("cannot open the store at \(storeLayout.directory.path)") {
            if options.isReadOnly { return try StoreLock(readingStore: storeLayout.directory) }
            try FileManager.default.createDirectory(
                at: storeLayout.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            return try StoreLock(store: storeLayout.directory, exclusive: false)
        }
        let opened = try storeLayout.refusingJournalDamage {
            try JournalOpening(
                layout: storeLayout, projections: projections, options: options,
                cipher: options.encryption.map { _ in StoreCipher() }, logger: logger
            ).open()
        }
        layout = opened.layout
        journalEnvironment = opened.journalEnvironment
        projectionEnvironment = opened.store.environment
        store = opened.store
        entries = opened.entries
        meta = opened.meta
        bootIdentifier = opened.bootIdentifier
        scratchProjectionDirectory = opened.scratchDirectory
        self.projections = projections
        self.clock = clock
        self.options = options
        self.logger = logger
        lifecycle = Mutex(Lifecycle(openingReport: opened.report))
        if opened.needsReset { try resetProjections() }
        // Read-only projections read in place have folded the whole journal (decision 0024).
        let folded = opened.store.environment.options.isReadOnly ? 0 : try catchUp(phase: opened.foldPhase)
        if opened.report.migratedFromFormat != nil { try finishMigration() }
        let report = lifecycle.withLock { state in
            state.openingReport.foldedEntries = folded
            return state.openingReport
        }
        if report.projections != .trusted || report.foldedEntries > 0 {
            logger.notice(
                "opened the store with recovered projections",
                metadata: [
                    "journal.directory": "\(layout.directory.path)", "journal.projections": "\(report.projections)",
                    "journal.folded": "\(report.foldedEntries)", "journal.reason": "\(report.reason ?? "")",
                ])
        }
    }

    /// Opens the journal in `directory` only if a store already exists there.
    ///
    /// Tools use this so that a mistyped path is an error instead of a new, empty store.
    /// - Throws: ``JournalError/Code/missingStore`` when `directory` holds no store;
    ///   ``JournalError/Code/notAStore`` when it holds something else (``StoreLayout/requireStore()``).
    public static func openExisting(
        directory: URL, projections: [any Projection] = [], clock: any WallClock,
        options: JournalOptions = JournalOptions(), logger: Logger
    ) throws -> Journal {
        try StoreLayout(directory: directory).requireStore()
        return try Journal(
            directory: directory, projections: projections, clock: clock, options: options, logger: logger)
    }

    deinit {
        let wasOpen = lifecycle.withLock { state in
            defer { state.isClosed = true }
            return !state.isClosed
        }
        guard wasOpen else { return }
        if let scratchProjectionDirectory { try? FileManager.default.removeItem(at: scratchProjectionDirectory) }
        guard !options.isReadOnly else { return }
        do {
            try flushProjections()
        } catch {
            logger.warning("could not sync the projections when the journal was released: \(error)")
        }
    }

    // MARK: - Transactions

    /// Runs `body` with a reader over one consistent snapshot of the projections.
    ///
    /// The snapshot is the fold of the journal through ``JournalReader/lastSequence``. Entries
    /// are read from the journal itself, in a read transaction begun only if `body` reads one.
    public func read<T>(_ body: (JournalReader) throws -> T) throws -> T {
        try requireOpenAndUndamaged()
        do {
            if lifecycle.withLock({ $0.tailPending }) { _ = try catchUp(phase: .catchingUp) }
            return try projectionEnvironment.read { transaction in
                try journalEnvironment.withDeferredRead { entries in
                    try body(JournalReader(transaction: transaction, entries: .deferred(entries), journal: self))
                }
            }
        } catch {
            if !noteProjectionDamageIfNoted(by: error), let damage = layout.journalDamage(in: error) { throw damage }
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

    var projectionDatabases: [String: Database] {
        store.databases
    }

    func projectionContext(_ transaction: Transaction) -> ProjectionContext {
        store.context(transaction)
    }

    func requireOpen() throws {
        guard !lifecycle.withLock({ $0.isClosed }) else { throw closedError }
    }

    /// What an operation on a closed journal throws.
    var closedError: JournalError {
        JournalError(.closed, "the journal at \(layout.directory.path) is closed")
    }

    /// The format version `journal.meta` records, or `nil` when it records none.
    static func recordedFormatVersion(meta: Database, in transaction: Transaction) throws -> UInt32? {
        try transaction.get(meta, key: formatVersionKey).map { bytes in
            bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
    }

    /// Records this build's ``formatVersion`` in `journal.meta`.
    static func recordFormatVersion(meta: Database, in transaction: Transaction) throws {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(formatVersion)
        try transaction.put(meta, key: formatVersionKey, value: bytes)
    }

    /// The sequence and timestamp of the last entry; (0, earliest) for an empty journal.
    static func lastEntryHead(of entries: Database, in transaction: Transaction) throws -> (
        sequence: UInt64, timestamp: WallTime
    ) {
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

    /// The checksum stored at the end of the entry at `sequence`, or `nil` when there is none.
    static func storedChecksum(of sequence: UInt64, entries: Database, in transaction: Transaction) throws -> UInt32? {
        guard sequence > 0 else { return 0 }
        return try transaction.withValue(entries, key: SequenceKey.encode(sequence)) { bytes in
            guard let bytes else { return nil }
            guard bytes.count >= 4 else {
                throw JournalError(.corruptEntry, "journal entry \(sequence) is truncated", sequence: sequence)
            }
            return bytes.loadLittleEndianUInt32(at: bytes.count - 4)
        }
    }

    static func wrap(_ error: any Error, _ context: String) -> any Error {
        if let full = error as? EnvironmentFull { return wrap(full.cause, context) }
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

/// A map that filled up during a write, so the write can grow that map and try again.
struct EnvironmentFull: Error {
    let environment: Environment
    let cause: LMDBError
}
