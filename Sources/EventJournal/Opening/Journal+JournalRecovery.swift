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
//    projections' checksum of M, the entries M + 1 ... K still readable in a damaged journal
//    file (``JournalSalvage``: committed, not yet folded), and one `journal.recovered` entry at
//    K + 1 (M + 1 when none were salvaged). Opening then folds them.
// A crash before 3 commits leaves no journal beside projections that folded M: opening refuses
// again, and recovery runs again from the same projections.
// An encrypted store's keys come from the copy of its key record kept outside the journal
// (decision 0026): the app's key must open it before step 1, so a wrong key changes nothing,
// and the new journal holds the same record.
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
    ///   - options: the options the store is opened with; for an encrypted store, its key,
    ///     which must open the copy of the store's wrapped keys kept beside the journal.
    ///   - logger: where the recovery is logged.
    /// - Returns: where the new journal begins and where the old one went.
    /// - Throws: ``JournalError/Code/unsupported`` when the journal is neither behind nor
    ///   damaged (nothing to recover), the projections were built by other versions, or the
    ///   store is encrypted and has no copy of its wrapped keys (a store not opened for writing
    ///   since decision 0026); ``JournalError/Code/keyRequired`` for an encrypted store opened
    ///   without a key; ``JournalError/Code/wrongKey`` when the key does not open the store's
    ///   keys, with no file changed; ``JournalError/Code/storeInUse`` while another process has
    ///   the store open.
    @discardableResult
    public static func recoverJournal(
        directory: URL, projections: [any Projection], clock: any WallClock,
        options: JournalOptions = JournalOptions(), logger: Logger
    ) throws -> JournalRecoveryReport {
        let layout = StoreLayout(directory: directory)
        // Before anything is opened: a wrong key is refused with every file as it was.
        let keys = try keysToRecover(layout, options: options)
        let reason = try refusalToRecoverFrom(layout, projections: projections, clock: clock, options: options)
        let report = try guarded("cannot recover the journal of the store at \(layout.directory.path)") {
            let lock = try StoreLock(store: layout.directory, exclusive: true)
            defer { withExtendedLifetime(lock) {} }
            let store = try openProjectionsToRecover(
                layout, projections: projections, options: options, sealer: projectionSealer(keys))
            let baseline = try store.environment.read { try store.foldedThrough($0) }
            let salvaged = JournalSalvage(
                file: layout.journalDirectory.appendingPathComponent("data.mdb"), after: baseline,
                cipher: keys?.cipher
            ).entries
            let aside = try keepDamagedPartsAside(layout)
            try store.environment.flush()
            let checkpoints = CheckpointStore(
                directory: layout.checkpointDirectory, signature: ProjectionStore.signature(of: projections),
                sealer: projectionSealer(keys))
            guard try checkpoints.save(store.environment) == baseline else {
                throw JournalError(
                    .storage, "the checkpoint of the projections does not end at entry \(baseline.sequence)")
            }
            try writeRecoveredJournal(
                layout, baseline: baseline, salvaged: salvaged, reason: reason, aside: aside, clock: clock,
                options: options, keys: keys)
            return JournalRecoveryReport(
                baselineSequence: baseline.sequence, salvagedEntryCount: salvaged.count,
                recoveredSequence: baseline.sequence + UInt64(salvaged.count) + 1, keptAside: aside, reason: reason)
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
                "journal.salvaged": "\(report.salvagedEntryCount)",
                "journal.aside": "\(report.keptAside.path)",
            ])
        return report
    }

    /// An encrypted store's keys, as the copy of its key record holds them; `nil` for a
    /// plaintext store.
    private struct RecoveredKeys: Sendable {
        /// The key record, wrapped under the app's key, that the new journal holds.
        var record: [UInt8]
        /// A cipher holding the keys the record wraps.
        var cipher: StoreCipher
    }

    /// The keys of an encrypted store, unwrapped from the copy of its key record with the
    /// app's key (AES-GCM tags checked), or `nil` for a store opened without a key. Reads
    /// only, so a refusal changes no file.
    private static func keysToRecover(_ layout: StoreLayout, options: JournalOptions) throws -> RecoveredKeys? {
        let copy = KeyRecordCopy(in: layout)
        guard let appKey = options.encryption else {
            guard !FileManager.default.fileExists(atPath: copy.file.path) else {
                throw JournalError(
                    .keyRequired, "the store at \(layout.directory.path) is encrypted: recover it with its key")
            }
            return nil
        }
        guard let record = try copy.read() else {
            throw JournalError(
                .unsupported,
                "cannot recover the encrypted store at \(layout.directory.path): it has no copy of its wrapped keys "
                    + "(\(KeyRecordCopy.fileName), written at every writable open since SyncJournal kept one) and "
                    + "they were in the journal; restore the journal from a backup")
        }
        let cipher = StoreCipher()
        cipher.keyRing = try StoreKeyRing(record: record, appKey: appKey)
        return RecoveredKeys(record: record, cipher: cipher)
    }

    /// What the projections and checkpoints are sealed with: the store's cipher, or checksums
    /// on a plaintext store (decision 0012).
    private static func projectionSealer(_ keys: RecoveredKeys?) -> any ValueSealer {
        keys.map { $0.cipher as any ValueSealer } ?? ValueChecksummer()
    }

    /// Opens the store as usual and reads every entry: the refusal's message when it is refused
    /// for a lost or damaged journal; an error when it opens and reads (nothing to recover) or
    /// fails otherwise.
    private static func refusalToRecoverFrom(
        _ layout: StoreLayout, projections: [any Projection], clock: any WallClock, options: JournalOptions
    ) throws -> String {
        do {
            let journal = try Journal(
                directory: layout.directory, projections: projections, clock: clock, options: options,
                logger: quietLogger())
            defer { try? journal.close() }
            // An entry that fails its checksum or authentication is damage too, which opening
            // does not read (decision 0027): every entry is read once.
            try journal.read { reader in
                let last = try reader.lastSequence
                let first = try reader.horizon.firstSequence
                guard last >= first else { return }
                try reader.forEachEntry(in: first...last) { _ in true }
            }
        } catch let error as JournalError where error.code == .journalBehind || error.isJournalDamage {
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

    /// The projections, opened with `sealer` (``projectionSealer(_:)``).
    private static func openProjectionsToRecover(
        _ layout: StoreLayout, projections: [any Projection], options: JournalOptions, sealer: any ValueSealer
    ) throws -> ProjectionStore {
        do {
            _ = try DataFileHeader.read(from: layout.projectionDirectory.appendingPathComponent("data.mdb"))
        } catch {
            throw JournalError(
                .unsupported, "cannot recover the journal from damaged projections: \(error); restore a backup")
        }
        var environmentOptions = options.environment
        environmentOptions.flushesOnCommit = false
        let environment = try Environment(
            directory: layout.projectionDirectory, options: environmentOptions, sealer: sealer)
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
    /// baseline, the entries salvaged after it as they were, the `journal.recovered` entry,
    /// and an encrypted store's key record.
    private static func writeRecoveredJournal(
        _ layout: StoreLayout, baseline: FoldMark, salvaged: [JournalEntry], reason: String, aside: URL,
        clock: any WallClock, options: JournalOptions, keys: RecoveredKeys?
    ) throws {
        let environment = try Environment(
            directory: layout.journalDirectory, options: options.environment, sealer: keys?.cipher)
        let keyDatabase = try keys.map { _ in try environment.database(named: StoreCipher.keysDatabaseName) }
        let entries = try environment.database(named: entriesDatabaseName)
        let meta = try environment.database(named: metaDatabaseName)
        let payload: JSONValue = [
            "reason": .string(reason), "keptAside": .string(aside.path),
            "baselineSequence": .number(JSONNumber(Int64(baseline.sequence))),
            "salvagedEntries": .number(JSONNumber(Int64(salvaged.count))),
        ]
        let entry = JournalEntry(
            sequence: baseline.sequence + UInt64(salvaged.count) + 1, kind: recoveredEntryKind, timestamp: clock.now(),
            header: [:],
            payload: payload.serialized(), payloadFormat: .json)
        try environment.write { transaction in
            if let keys, let keyDatabase {
                try transaction.put(keyDatabase, key: StoreCipher.keyRecordKey, value: keys.record)
            }
            try recordFormatVersion(meta: meta, in: transaction)
            let horizon = JournalHorizon(firstSequence: baseline.sequence + 1, anchorChecksum: baseline.checksum)
            try transaction.put(meta, key: horizonKey, value: horizon.bytes)
            for salvagedEntry in salvaged + [entry] {
                try transaction.put(
                    entries, key: SequenceKey.encode(salvagedEntry.sequence), value: salvagedEntry.envelope())
            }
        }
    }
}
