public import Determinism
public import EventJournal
public import Foundation
public import Logging
public import Soups

/// A SyncJournal store on disk: the journal with every standard projection, and the soups.
///
/// Tools and apps open stores through this type so that every reader folds the same
/// projections: `journal-replay verify` then checks exactly what the app maintains.
///
/// ```swift
/// let store = try SyncStore(directory: url, clock: SystemWallClock(), logger: logger)
/// try store.soups.registerSoup("accounts", indexSpecs: [IndexSpec(path: "Id", type: .string)])
/// ```
public final class SyncStore: Sendable {
    /// The journal every change is appended to.
    public let journal: Journal
    /// The soups, folded from the journal.
    public let soups: SoupStore
    /// The store's directory, as `msync --store` names it (a path given to the store's
    /// `journal/` folder names its parent).
    public let directory: URL
    /// Which syncs a live process owns (`leases/` in ``directory``).
    let leases: SyncLeases

    /// The projections of a SyncJournal store, in apply order: the soups with MobileSync's fold
    /// rules for the sync entries (`SyncFoldRules`), the sync states, the pending uploads.
    public static var projections: [any Projection] {
        [SoupProjection(rules: SyncFoldRules.make()), SyncStateProjection(), PendingUploadsProjection()]
    }

    /// Opens (creating when missing) the store in `directory`.
    ///
    /// The directory holds the journal, the projections and their checkpoints
    /// (`EventJournal.StoreLayout`). Opening recovers the projections when it must; see
    /// `Journal.init(directory:projections:clock:options:logger:)`.
    ///
    /// - Parameters:
    ///   - directory: the store's directory; created when missing.
    ///   - clock: stamps entries and `_soupLastModifiedDate`.
    ///   - idGenerator: numbers local ids; by default microsecond readings of `clock`, so ids
    ///     minted by separate runs do not collide.
    ///   - options: the journal's options (LMDB, checkpoints, retention, observation).
    ///   - logger: where recoveries, checkpoints and syncs are logged.
    public init(
        directory: URL, clock: any WallClock, idGenerator: (any IDGenerator)? = nil,
        options: JournalOptions = JournalOptions(), logger: Logger
    ) throws {
        journal = try Journal(
            directory: directory, projections: Self.projections, clock: clock, options: options, logger: logger)
        soups = SoupStore(journal: journal, clock: clock, idGenerator: idGenerator ?? ClockIDGenerator(clock: clock))
        if !options.isReadOnly { Self.compressRecords(of: soups, progress: options.openingProgress, logger: logger) }
        // The journal's layout resolves the directory, so every process that names one store,
        // whichever way, finds the same leases.
        self.directory = journal.layout.directory
        leases = SyncLeases(storeDirectory: journal.layout.directory)
    }

    /// Compresses the records a store written before record compression, or left part-way,
    /// still holds as JSON, reporting `progress` as ``EventJournal/OpeningProgress/Phase/compressingRecords``
    /// (decision 0033). The store is open and correct either way, so a failure is not thrown:
    /// the batches left are journaled after later writes. It is logged at debug level only,
    /// since whatever stopped it (damaged projections, a full disk) is reported, with its
    /// remedy, by the caller's first read or write, and a tool prints one line per failure.
    private static func compressRecords(
        of soups: SoupStore, progress: (@Sendable (OpeningProgress) -> Void)?, logger: Logger
    ) {
        do {
            try soups.compressRecords { compressed, total in
                progress?(OpeningProgress(phase: .compressingRecords, folded: UInt64(compressed), total: UInt64(total)))
            }
        } catch {
            logger.debug("the store's records stay partly uncompressed until later writes: \(error)")
        }
    }

    /// Opens the store in `directory` only if one exists there.
    ///
    /// - Throws: `JournalError` with code `missingStore` when `directory` holds no store, or
    ///   `notAStore` when it holds something else.
    public static func openExisting(
        directory: URL, clock: any WallClock, idGenerator: (any IDGenerator)? = nil,
        options: JournalOptions = JournalOptions(), logger: Logger
    ) throws -> SyncStore {
        try StoreLayout(directory: directory).requireStore()
        return try SyncStore(
            directory: directory, clock: clock, idGenerator: idGenerator, options: options, logger: logger)
    }

    /// Starts a new journal from the projections' state when the store's journal lost entries.
    ///
    /// Opening refuses such a store (`JournalError` code `journalBehind`, or `damagedJournal`
    /// when its journal file is truncated); this keeps its soups, local-change flags, pending
    /// uploads and sync states, moves the damaged journal into the store's `damaged-N/`
    /// folder, and restarts history at the projections' fold mark. See `Journal.recoverJournal(directory:projections:clock:options:logger:)`.
    /// - Returns: where the new journal begins and where the damaged one was put.
    @discardableResult
    public static func recoverJournal(
        directory: URL, clock: any WallClock, options: JournalOptions = JournalOptions(), logger: Logger
    ) throws -> JournalRecoveryReport {
        try StoreLayout(directory: directory).requireStore()
        return try Journal.recoverJournal(
            directory: directory, projections: Self.projections, clock: clock, options: options, logger: logger)
    }
}
