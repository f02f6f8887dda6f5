public import Determinism
public import Foundation
import LMDBStore
public import Logging
import LosslessJSON

// Recovering a journal that lost entries (issue 29, decision 0009). Opening refuses a journal
// that ends before what the projections folded; the projections then hold the only copy of
// the user's data. Recovery keeps that copy: it makes the projections the checkpoint of a new
// journal's horizon, exactly as compaction leaves a journal whose older entries are gone, so
// every fold, `verify` and `state --as-of` start from it. In order, under the store's
// exclusive lock:
// 1. the damaged `journal/` and the old `checkpoints/` are renamed into `damaged-N/`;
// 2. a synced checkpoint of the projections as they are is written at their fold mark M;
// 3. a new journal is written in one synced commit: its horizon at M + 1 anchored at the
//    projections' checksum of M, and one `journal.recovered` entry at M + 1.
// A crash before 3 commits leaves no journal beside projections that folded M: opening refuses
// again, and recovery runs again from the same projections.
extension Journal {
    /// The kind of the entry a recovered journal begins with.
    public static let recoveredEntryKind: JournalEntry.Kind = "journal.recovered"

    /// Starts a new journal from the projections' state when the journal lost entries.
    ///
    /// Use it when opening throws ``JournalError/Code/journalBehind`` or
    /// ``JournalError/Code/damagedJournal`` (a truncated journal file) and no backup of the
    /// journal is at hand: the records, flags, pending uploads and sync states the projections
    /// hold survive, and history restarts at their fold mark (older entries cannot be read,
    /// as below a compaction horizon). The damaged journal is kept in `damaged-N/`.
    ///
    /// - Parameters:
    ///   - directory: the store's directory.
    ///   - projections: the store's projections, the ones that wrote it.
    ///   - clock: stamps the `journal.recovered` entry.
    ///   - options: the options the store is opened with; a store key is not supported (the
    ///     key record lived in the lost journal).
    ///   - logger: where the recovery is logged.
    /// - Returns: where the new journal begins and where the old one went.
    /// - Throws: ``JournalError/Code/unsupported`` when the journal is neither behind nor
    ///   damaged (nothing to recover), the store is encrypted, or the projections were built by other versions;
    ///   ``JournalError/Code/storeInUse`` while another process has the store open.
    @discardableResult
    public static func recoverJournal(
        directory: URL, projections: [any Projection], clock: any WallClock,
        options: JournalOptions = JournalOptions(), logger: Logger
    ) throws -> JournalRecoveryReport {
        let layout = StoreLayout(directory: directory)
        let reason = try refusalToRecoverFrom(layout, projections: projections, clock: clock, options: options)
        let report = try guarded("cannot recover the journal of the store at \(layout.directory.path)") {
            let lock = try StoreLock(store: layout.directory, exclusive: true)
            defer { withExtendedLifetime(lock) {} }
            let store = try openProjectionsToRecover(layout, projections: projections, options: options)
            let baseline = try store.environment.read { try store.foldedThrough($0) }
            let aside = try keepDamagedPartsAside(layout)
            try store.environment.flush()
            let checkpoints = CheckpointStore(
                directory: layout.checkpointDirectory, signature: ProjectionStore.signature(of: projections),
                sealer: ValueChecksummer())
            guard try checkpoints.save(store.environment) == baseline else {
                throw JournalError(
                    .storage, "the checkpoint of the projections does not end at entry \(baseline.sequence)")
            }
            try writeRecoveredJournal(
                layout, baseline: baseline, reason: reason, aside: aside, clock: clock, options: options)
            return JournalRecoveryReport(
                baselineSequence: baseline.sequence, recoveredSequence: baseline.sequence + 1, keptAside: aside,
                reason: reason)
        }
        // Opening folds the `journal.recovered` entry, and proves the new journal continues the projections.
        let journal = try Journal(
            directory: layout.directory, projections: projections, clock: clock, options: options,
            logger: quietLogger())
        try journal.close()
        logger.notice(
            "recovered the journal from the projections",
            metadata: [
                "journal.directory": "\(layout.directory.path)", "journal.baseline": "\(report.baselineSequence)",
                "journal.aside": "\(report.keptAside.path)",
            ])
        return report
    }

    /// Opens the store as usual: the refusal's message when it is refused for a lost journal;
    /// an error when it opens (nothing to recover) or fails otherwise.
    private static func refusalToRecoverFrom(
        _ layout: StoreLayout, projections: [any Projection], clock: any WallClock, options: JournalOptions
    ) throws -> String {
        guard options.encryption == nil else {
            throw JournalError(
                .unsupported,
                "cannot recover the encrypted store at \(layout.directory.path): its keys were in the journal; "
                    + "restore the journal from a backup")
        }
        do {
            let journal = try Journal(
                directory: layout.directory, projections: projections, clock: clock, options: options,
                logger: quietLogger())
            try journal.close()
        } catch let error as JournalError where error.code == .journalBehind || error.code == .damagedJournal {
            return error.message
        }
        throw JournalError(
            .unsupported,
            "the journal of the store at \(layout.directory.path) is neither damaged nor behind its projections: "
                + "nothing to recover")
    }

    /// The opens recovery makes for itself report nothing worth a line: its own notice says
    /// what happened. A logger with no handler output, not one bootstrapped by the library.
    private static func quietLogger() -> Logger {
        Logger.discarding
    }

    private static func openProjectionsToRecover(
        _ layout: StoreLayout, projections: [any Projection], options: JournalOptions
    ) throws -> ProjectionStore {
        do {
            _ = try DataFileHeader.read(from: layout.projectionDirectory.appendingPathComponent("data.mdb"))
        } catch {
            throw JournalError(
                .unsupported, "cannot recover the journal from damaged projections: \(error); restore a backup")
        }
        var environmentOptions = options.environment
        environmentOptions.flushesOnCommit = false
        // Recovery is refused for encrypted stores, so the projections are plaintext, checked (decision 0012).
        let environment = try Environment(
            directory: layout.projectionDirectory, options: environmentOptions, sealer: ValueChecksummer())
        let store = try ProjectionStore(projections: projections, in: environment)
        guard try environment.read({ try store.isCurrent($0) }) else {
            throw JournalError(
                .unsupported,
                "the projections at \(layout.projectionDirectory.path) were built by other projection versions; "
                    + "recover the journal with the SyncJournal that wrote them")
        }
        return store
    }

    /// Renames the damaged journal and the old history's checkpoints and anchor into a new
    /// `damaged-N/`.
    private static func keepDamagedPartsAside(_ layout: StoreLayout) throws -> URL {
        let files = FileManager.default
        var number = 1
        var aside = layout.directory.appendingPathComponent("damaged-1", isDirectory: true)
        while files.fileExists(atPath: aside.path) {
            number += 1
            aside = layout.directory.appendingPathComponent("damaged-\(number)", isDirectory: true)
        }
        try files.createDirectory(at: aside, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        for part in [layout.journalDirectory, layout.checkpointDirectory, layout.anchorDirectory]
        where files.fileExists(atPath: part.path) {
            try files.moveItem(at: part, to: aside.appendingPathComponent(part.lastPathComponent, isDirectory: true))
        }
        try FileDurability.flushDirectory(aside)
        try FileDurability.flushDirectory(layout.directory)
        return aside
    }

    /// Writes the new journal in one synced commit: its format, its horizon right after the
    /// baseline, and the `journal.recovered` entry.
    private static func writeRecoveredJournal(
        _ layout: StoreLayout, baseline: FoldMark, reason: String, aside: URL, clock: any WallClock,
        options: JournalOptions
    ) throws {
        let environment = try Environment(directory: layout.journalDirectory, options: options.environment)
        let entries = try environment.database(named: entriesDatabaseName)
        let meta = try environment.database(named: metaDatabaseName)
        let payload: JSONValue = [
            "reason": .string(reason), "keptAside": .string(aside.path),
            "baselineSequence": .number(JSONNumber(Int64(baseline.sequence))),
        ]
        let entry = JournalEntry(
            sequence: baseline.sequence + 1, kind: recoveredEntryKind, timestamp: clock.now(), header: [:],
            payload: payload.serialized(), payloadFormat: .json)
        try environment.write { transaction in
            try recordFormatVersion(meta: meta, in: transaction)
            let horizon = JournalHorizon(firstSequence: baseline.sequence + 1, anchorChecksum: baseline.checksum)
            try transaction.put(meta, key: horizonKey, value: horizon.bytes)
            try transaction.put(entries, key: SequenceKey.encode(entry.sequence), value: entry.envelope())
        }
    }
}
