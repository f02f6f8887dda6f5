import Determinism
import Foundation
import LMDBStore
import Logging

/// Opening a store: its journal environment, its format, and projections it can trust.
///
/// The projections are trusted as they are when the machine has not restarted since they were
/// last written without a sync (a killed process leaves everything it committed in the page
/// cache), they open, they were built by this build's projections, and they are a fold of a
/// prefix of this journal. Otherwise they are never read: they are replaced by the newest
/// valid checkpoint, or by nothing (a fold from the first entry). Replacing them happens under
/// the journal's write lock and a repair generation, so processes opening together repair
/// once. Decision 0003 has the reasoning.
struct JournalOpening {
    let layout: StoreLayout
    let projections: [any Projection]
    let options: JournalOptions
    /// Seals both environments when ``JournalOptions/encryption`` is set.
    let cipher: StoreCipher?
    let logger: Logger

    /// What `Journal.init` continues from.
    struct Opened {
        var layout: StoreLayout
        var journalEnvironment: Environment
        var entries: Database
        var meta: Database
        var store: ProjectionStore
        var bootIdentifier: String
        var report: OpeningReport
        /// Whether the projections must be emptied before the journal is folded into them.
        var needsReset: Bool
        var foldPhase: OpeningProgress.Phase
        /// The scratch copy the projections were opened in, for a read-only open whose
        /// projections must be folded further (decision 0024); removed when the journal closes.
        var scratchDirectory: URL? = nil
    }

    /// What the journal looks like when the projections are judged.
    struct JournalState {
        var lastSequence: UInt64
        var unsyncedBoot: String?
        var repairGeneration: UInt64
    }

    private enum Verdict {
        case trusted(ProjectionStore)
        case reset(ProjectionStore, reason: String)
        /// Not to be read; `damage` says what is wrong with their file when that is why.
        /// `afterPowerLoss`: only writes after their recorded synced snapshot are in doubt.
        case untrusted(reason: String, damage: String? = nil, afterPowerLoss: Bool = false)
    }

    /// How many times opening judges again after another process repaired the projections
    /// at the same moment.
    static let repairAttemptMax = 3

    func open() throws -> Opened {
        try refuseLostJournal()
        if options.isReadOnly { return try openReadOnly() }
        let moved = try Journal.guarded("cannot convert the store at \(layout.directory.path)") {
            try layout.moveFormatOneDataIntoJournalDirectory()
        }
        if moved { logger.notice("moved a format-1 store into \(layout.journalDirectory.path)") }
        // Checked before LMDB maps the file: a truncated journal would end the process with
        // SIGBUS at the first read instead of failing this call (issue 49).
        try layout.requireUndamagedJournal()
        let journalEnvironment: Environment
        let entries: Database
        let meta: Database
        do {
            journalEnvironment = try Environment(
                directory: layout.journalDirectory, options: options.environment, sealer: cipher)
            entries = try journalEnvironment.database(named: Journal.entriesDatabaseName)
            meta = try journalEnvironment.database(named: Journal.metaDatabaseName)
        } catch {
            throw JournalError(
                .storage, "cannot open the journal at \(layout.journalDirectory.path): \(error)", cause: error)
        }
        try loadKeys(journalEnvironment, entries: entries, meta: meta)
        if options.compactionArchive != nil { try Journal.refusePlaintextArchive(encrypted: cipher != nil) }
        let format = try checkFormat(journalEnvironment, entries: entries, meta: meta)
        let bootIdentifier: String
        do {
            bootIdentifier = try options.bootIdentity.current()
        } catch {
            throw JournalError(.storage, "cannot read the machine's boot identity: \(error)", cause: error)
        }
        let environment = JournalEnvironment(
            environment: journalEnvironment, entries: entries, meta: meta, bootIdentifier: bootIdentifier)
        var outcome = try openProjections(environment, format: format)
        if format == 1 {
            outcome.report.migratedFromFormat = 1
            outcome.foldPhase = .migrating
        }
        return Opened(
            layout: layout, journalEnvironment: journalEnvironment, entries: entries, meta: meta, store: outcome.store,
            bootIdentifier: bootIdentifier, report: outcome.report, needsReset: outcome.needsReset,
            foldPhase: outcome.foldPhase)
    }

    // MARK: - Keys

    /// Reads the store's key record with the app's key, or makes one for a new store; refuses
    /// a store and a key that do not go together (decision 0006). Then keeps the copy of the
    /// record outside the journal in step with it (decision 0026): written for a new store,
    /// and for a store made before the copy existed at its first writable open.
    private func loadKeys(_ environment: Environment, entries: Database, meta: Database) throws {
        let keys = try Journal.guarded("cannot open the journal's keys") {
            try environment.database(named: StoreCipher.keysDatabaseName)
        }
        let stored = try Journal.guarded("cannot read the journal's keys") {
            try environment.write { transaction -> [UInt8]? in
                let record = try transaction.get(keys, key: StoreCipher.keyRecordKey)
                switch (record, options.encryption, cipher) {
                case (nil, nil, _):
                    return nil
                case (.some, nil, _):
                    throw JournalError(
                        .keyRequired, "the store at \(layout.directory.path) is encrypted: open it with its key")
                case (.some(let record), .some(let key), .some(let cipher)):
                    cipher.keyRing = try keyRing(record: record, appKey: key)
                    return record
                case (nil, .some(let key), .some(let cipher)):
                    guard try transaction.entryCount(entries) == 0, try transaction.entryCount(meta) == 0 else {
                        try refuseLostKeyRecord(appKey: key)
                        throw JournalError(
                            .notEncrypted,
                            "the store at \(layout.directory.path) was created without a key and is not encrypted; "
                                + "open it without one, or export it and import it into a new encrypted store")
                    }
                    let ring = StoreKeyRing.generate()
                    let record = try ring.record(wrappedUnder: key)
                    try transaction.put(keys, key: StoreCipher.keyRecordKey, value: record)
                    cipher.keyRing = ring
                    return record
                case (_, .some, nil):
                    preconditionFailure("a journal opened with a key always has a cipher")
                }
            }
        }
        guard let stored else { return }
        try Journal.guarded("cannot write the copy of the store's wrapped keys") {
            try KeyRecordCopy(in: layout).keepInStep(with: stored)
        }
    }

    /// The keys `record` holds under `appKey`. A record the key does not open is journal damage,
    /// not a wrong key, when the copy beside the journal (decision 0026) holds other bytes that the
    /// key opens: the key is the store's, and the journal's page holding the record is damaged.
    func keyRing(record: [UInt8], appKey: StoreKey) throws -> StoreKeyRing {
        do {
            return try StoreKeyRing(record: record, appKey: appKey)
        } catch let error as JournalError where error.code == .wrongKey {
            guard let copy = try? KeyRecordCopy(in: layout).read(), copy != record,
                (try? StoreKeyRing(record: copy, appKey: appKey)) != nil
            else { throw error }
            throw layout.damagedJournalError(
                "its key record in \(StoreCipher.keysDatabaseName) does not open with the key, which opens the copy "
                    + "beside the journal", opened: true, cause: error)
        }
    }

    /// Refuses, as journal damage, a journal without a key record whose store keeps a copy of
    /// one beside the journal that `appKey` opens (decision 0026): the store was encrypted, and
    /// the journal's page or key holding the record is damaged. Returns when there is no such copy.
    func refuseLostKeyRecord(appKey: StoreKey) throws {
        guard let copy = try? KeyRecordCopy(in: layout).read(), (try? StoreKeyRing(record: copy, appKey: appKey)) != nil
        else { return }
        throw layout.damagedJournalError(
            "it has no key record in \(StoreCipher.keysDatabaseName), while the copy beside the journal opens with the "
                + "key", opened: true, cause: JournalError(.keyRequired, "the journal's key record is missing"))
    }

    // MARK: - Format

    private func checkFormat(_ environment: Environment, entries: Database, meta: Database) throws -> UInt32 {
        try Journal.guarded("cannot read the journal's format version") {
            try environment.write { transaction in
                guard let stored = try Journal.recordedFormatVersion(meta: meta, in: transaction) else {
                    // A store of format 1 always recorded its format; no version and no entries is a new store.
                    guard try transaction.entryCount(entries) == 0 else { return 1 }
                    try Journal.recordFormatVersion(meta: meta, in: transaction)
                    return Journal.formatVersion
                }
                if stored > Journal.formatVersion {
                    throw JournalError(
                        .newerFormat,
                        "the journal at \(environment.directory.path) has format \(stored), newer than the "
                            + "\(Journal.formatVersion) this SyncJournal reads; open it with a newer SyncJournal")
                }
                if stored < 1 {
                    throw JournalError(
                        .needsMigration,
                        "the journal at \(environment.directory.path) has format \(stored), which this SyncJournal "
                            + "cannot convert")
                }
                // Entries appended from now on may be compressed, which a SyncJournal of format 2
                // or 3 would misread as damage: recorded before the first one, so it refuses instead.
                if stored >= 2, stored < Journal.formatVersion {
                    try Journal.recordFormatVersion(meta: meta, in: transaction)
                    return Journal.formatVersion
                }
                return stored
            }
        }
    }

    // MARK: - Projections

    /// The journal environment's parts that judging and repairing the projections read.
    struct JournalEnvironment {
        var environment: Environment
        var entries: Database
        var meta: Database
        var bootIdentifier: String
    }

    /// The projections opening settled on.
    private struct Outcome {
        var store: ProjectionStore
        var report = OpeningReport(projections: .trusted)
        var needsReset = false
        var foldPhase = OpeningProgress.Phase.catchingUp
    }

    private func openProjections(_ journal: JournalEnvironment, format: UInt32) throws -> Outcome {
        var migratedFrom: String?
        for _ in 0..<Self.repairAttemptMax {
            let state = try journalState(journal)
            switch try judge(state, journal: journal, format: format) {
            case .trusted(let store):
                var outcome = Outcome(store: store)
                outcome.report.migratedProjectionsFrom = migratedFrom
                if state.lastSequence > 0, format == 1 {
                    outcome.report.reason = "a conversion from format 1 was interrupted; it continues"
                }
                return outcome
            case .reset(let store, let reason):
                if let migrated = try migrateCompacted(journal, store: store) {
                    migratedFrom = migrated
                    continue
                }
                try refuseRebuildIfCompacted(journal, reason: reason)
                // The rebuild replaces every value, damaged ones with the rest.
                try? FileManager.default.removeItem(at: layout.projectionDamageMarker)
                var outcome = Outcome(store: store, needsReset: true)
                if state.lastSequence > 0 {
                    outcome.report = OpeningReport(projections: .rebuilt, reason: reason)
                    outcome.foldPhase = .recovering
                }
                return outcome
            case .untrusted(let reason, let damage, let afterPowerLoss):
                try refuseCheckpointsAhead(of: state.lastSequence, journal: journal)
                try Journal.guarded("cannot migrate the checkpoints") {
                    try journal.environment.write { transaction in
                        if try Journal.horizon(meta: journal.meta, in: transaction).isCompacted {
                            try migrateCheckpoints()
                            try migrateAnchor()
                        }
                    }
                }
                guard
                    let repair = try repair(
                        journal, expectedGeneration: state.repairGeneration, afterPowerLoss: afterPowerLoss)
                else { continue }
                var outcome = Outcome(store: try repair.snapshotStore ?? openStore(), foldPhase: .recovering)
                outcome.report.reason = reason
                outcome.report.projectionsDamage = damage
                if let mark = repair.restored, repair.snapshotStore != nil {
                    outcome.report.projections = .restoredSyncedSnapshot(mark.sequence)
                } else if let mark = repair.restored,
                    try outcome.store.environment.read({ try outcome.store.isCurrent($0) })
                {
                    outcome.report.projections = .restoredCheckpoint(mark.sequence)
                } else {
                    outcome.report.projections = .rebuilt
                    outcome.needsReset = true
                }
                return outcome
            }
        }
        throw JournalError(
            .storage,
            "the projections at \(layout.projectionDirectory.path) kept changing while this process recovered them")
    }

    /// Brings the projections and checkpoints of a compacted store, written by other versions
    /// of the projections, to this build's in place (decision 0010); returns the versions it
    /// migrated from, or `nil` when it could not.
    ///
    /// The checkpoints go first, each in one atomic rewrite, then the live projections, synced:
    /// an interruption leaves the live state old and opening migrates again, while checkpoints
    /// of the old versions would be discarded as unusable by a later recovery. All under the
    /// journal's write lock, so processes opening together migrate once.
    private func migrateCompacted(_ opened: JournalEnvironment, store: ProjectionStore) throws -> String? {
        let migrated = try Journal.guarded("cannot migrate the projections") {
            try opened.environment.write { transaction -> String? in
                // The live state is checked first: checkpoints migrated for a state that then
                // cannot migrate would only be lost to the build that wrote them.
                guard try Journal.horizon(meta: opened.meta, in: transaction).isCompacted,
                    let stored = try store.environment.read({ try store.migrationPlan($0)?.signature })
                else { return nil }
                try migrateCheckpoints()
                try migrateAnchor()
                // Migrated in place without a pin: the recorded snapshot's pages may be reused.
                try SyncedSnapshotRecord.remove(in: layout.projectionDirectory)
                guard try store.environment.write({ try store.migrate(in: $0) }) else { return nil }
                try store.environment.flush()
                return stored
            }
        }
        if let migrated {
            logger.notice(
                "migrated the projections at \(layout.projectionDirectory.path) from \(migrated) to \(store.signature)")
        }
        return migrated
    }

    /// Migrates every checkpoint of other projection versions that can migrate; called under
    /// the journal's write lock, and only for a compacted store (an uncompacted one rebuilds).
    private func migrateCheckpoints() throws {
        let checkpoints = checkpointStore()
        let scratch = layout.checkpointDirectory.appendingPathComponent(
            "partial-\(ProcessInfo.processInfo.processIdentifier)-migrate", isDirectory: true)
        for sequence in checkpoints.sequences() where checkpoints.manifest(sequence) == nil {
            if try checkpoints.migrate(sequence, to: projections, scratch: scratch) {
                logger.notice("migrated checkpoint \(sequence) to \(checkpoints.signature)")
            }
        }
    }

    /// Migrates the anchor to this build's projections in place, in one synced commit, when
    /// it holds other versions that can migrate; called like ``migrateCheckpoints()``.
    private func migrateAnchor() throws {
        let anchor = anchor
        guard anchor.exists else { return }
        let migrated = try anchor.withEnvironment { environment in
            let anchorStore = try ProjectionStore(projections: projections, in: environment)
            let needsMigration = try environment.read { transaction in
                try !anchorStore.isCurrent(transaction) && anchorStore.migrationPlan(transaction) != nil
            }
            guard needsMigration else { return false }
            return try environment.write { try anchorStore.migrate(in: $0) }
        }
        if migrated {
            logger.notice(
                "migrated the anchor at \(layout.anchorDirectory.path) to \(ProjectionStore.signature(of: projections))"
            )
        }
    }

    /// A rebuild folds from the first entry; a compacted journal no longer has it, and a
    /// checkpoint of other projection versions cannot stand in (decision 0005) unless it migrates
    /// (decision 0010).
    private func refuseRebuildIfCompacted(_ opened: JournalEnvironment, reason: String) throws {
        let horizon = try Journal.guarded("cannot read the journal") {
            try opened.environment.read { try Journal.horizon(meta: opened.meta, in: $0) }
        }
        guard horizon.isCompacted else { return }
        throw JournalError(
            .belowHorizon,
            "cannot rebuild the projections at \(layout.projectionDirectory.path) (\(reason)): they fold from the "
                + "first entry, and entries before the horizon, entry \(horizon.firstSequence), were compacted away; "
                + "open the store with the projections that wrote it, or import its archive into a new store",
            sequence: horizon.firstSequence)
    }

    func journalState(_ opened: JournalEnvironment) throws -> JournalState {
        try Journal.guarded("cannot read the journal") {
            try opened.environment.read { transaction in
                JournalState(
                    lastSequence: try Journal.lastEntryHead(of: opened.entries, in: transaction).sequence,
                    unsyncedBoot: try transaction.get(opened.meta, key: Journal.unsyncedBootKey).map {
                        String(decoding: $0, as: UTF8.self)
                    },
                    repairGeneration: try transaction.get(opened.meta, key: Journal.repairGenerationKey).flatMap(
                        SequenceKey.decode) ?? 0)
            }
        }
    }

    private func judge(_ state: JournalState, journal opened: JournalEnvironment, format: UInt32) throws -> Verdict {
        let exists = FileManager.default.fileExists(
            atPath: layout.projectionDirectory.appendingPathComponent("data.mdb").path)
        if format == 1 && !exists {
            return .untrusted(reason: "the store has format 1: its projections are rebuilt in their own environment")
        }
        if let boot = state.unsyncedBoot, boot != opened.bootIdentifier {
            return .untrusted(
                reason: "the machine restarted (boot \(boot), now \(opened.bootIdentifier)) after the projections "
                    + "were written without a sync", afterPowerLoss: true)
        }
        guard exists else {
            return state.lastSequence == 0
                ? .reset(try openStore(), reason: "new store") : .untrusted(reason: "the projections are missing")
        }
        // Checked before LMDB maps the file: mapping a damaged one can end the process
        // (decision 0013). The projections are derived, so damage means a rebuild.
        if let damage = projectionDamage() {
            return .untrusted(reason: "the projections are damaged: \(damage)", damage: damage)
        }
        let store: ProjectionStore
        do {
            store = try openStore()
        } catch {
            return .untrusted(
                reason: "the projections cannot be opened: \(error)",
                damage: Journal.isDamagedPage(error) ? "\(error)" : nil)
        }
        let isCurrent: Bool
        let mark: FoldMark
        do {
            (isCurrent, mark) = try Journal.guarded("cannot read the projections") {
                try store.environment.read { try (store.isCurrent($0), store.foldedThrough($0)) }
            }
        } catch  where Journal.isDamagedPage(error) || layout.projectionDamageNoted {
            // A damaged fold mark is noted by the read that met it (a value failing its check)
            // and fails the same way at every open: it is damage, never a reason to refuse.
            return .untrusted(reason: "the projections are damaged: \(error)", damage: "\(error)")
        }
        // Projections past the journal's end prove that the journal lost entries; a rebuild
        // from it would throw the proof away together with the user's data (issue 29). The
        // journal commits before the projections, so a process that appended after the
        // journal's end was read has moved both: its end is read again before concluding.
        var state = state
        if mark.sequence > state.lastSequence { state = try journalState(opened) }
        guard mark.sequence <= state.lastSequence else {
            throw lostJournalError(
                "the journal at \(layout.journalDirectory.path) ends at entry \(state.lastSequence), but the "
                    + "projections have folded through entry \(mark.sequence)",
                sequence: mark.sequence)
        }
        guard isCurrent else {
            return .reset(store, reason: "the projections were built by other projection versions")
        }
        return try judgeChain(of: store, mark: mark, state: state, journal: opened)
    }

    /// The verdict on current projections whose fold mark the journal reaches: trusted when the
    /// journal's entry at the mark is the one they folded and no read found a damaged value.
    private func judgeChain(
        of store: ProjectionStore, mark: FoldMark, state: JournalState, journal opened: JournalEnvironment
    ) throws -> Verdict {
        if let reason = try distrust(ofMark: mark, state: state, journal: opened) { return .untrusted(reason: reason) }
        return .trusted(store)
    }

    /// Why projections folded through `mark` cannot be used as they are, or `nil` when the
    /// journal's entry at the mark is the one they folded and no read found a damaged value;
    /// what a writing and a read-only open both ask.
    /// - Throws: ``JournalError/Code/lostJournal`` when the journal is another history.
    func distrust(ofMark mark: FoldMark, state: JournalState, journal opened: JournalEnvironment) throws -> String? {
        let checksum = try Journal.guarded("cannot read the journal") {
            try opened.environment.read {
                try Journal.continuableChecksum(of: mark.sequence, entries: opened.entries, meta: opened.meta, in: $0)
            }
        }
        if let checksum, checksum != mark.checksum {
            throw lostJournalError(
                "the journal at \(layout.journalDirectory.path) (last entry \(state.lastSequence)) is another "
                    + "history than the projections': its entry \(mark.sequence) has checksum \(checksum), the "
                    + "projections folded one with checksum \(mark.checksum)",
                sequence: mark.sequence)
        }
        guard checksum == mark.checksum else {
            return "the projections were folded from another journal (entry \(mark.sequence) differs)"
        }
        // Judged after the journal is known to be theirs: a journal behind them is refused
        // rather than folded into a rebuild (decision 0009).
        if FileManager.default.fileExists(atPath: layout.projectionDamageMarker.path) {
            return "a read found a projection value that failed its check (decision 0012)"
        }
        return nil
    }

    // MARK: - A journal that lost entries

    /// Refuses, before any file is opened for writing, a journal that is missing or empty
    /// while the projections or checkpoints hold folded entries: folding it would replace the
    /// user's data by nothing.
    private func refuseLostJournal() throws {
        let files = FileManager.default
        let journalFile = layout.journalDirectory.appendingPathComponent("data.mdb")
        let journalBytes = (try? files.attributesOfItem(atPath: journalFile.path)[.size] as? Int) ?? nil
        guard journalBytes ?? 0 == 0, !files.fileExists(atPath: layout.formatOneDataFile.path) else { return }
        let state = journalBytes == nil ? "is missing" : "is empty (0 bytes)"
        if let folded = try foldedSequenceOfProjections(), folded > 0 {
            // `UInt64.max`: projections that cannot be read without the lost journal's keys.
            let through = folded == UInt64.max ? "entries it no longer holds" : "through entry \(folded)"
            throw lostJournalError(
                "the journal at \(layout.journalDirectory.path) \(state), but the projections have folded \(through)",
                sequence: folded)
        }
        if let newest = try newestCheckpoint(), newest > 0 {
            throw lostJournalError(
                "the journal at \(layout.journalDirectory.path) \(state), but checkpoint \(newest) holds the state "
                    + "as of entry \(newest)", sequence: newest)
        }
    }

    /// Refuses a repair that would fold a journal shorter than a checkpoint already written.
    /// The journal's end is read again first, since another process may have appended (and
    /// compacted into the anchor) after it was read.
    private func refuseCheckpointsAhead(of lastSequence: UInt64, journal opened: JournalEnvironment) throws {
        guard let newest = try newestCheckpoint(), newest > lastSequence else { return }
        let lastSequence = try journalState(opened).lastSequence
        guard newest > lastSequence else { return }
        throw lostJournalError(
            "the journal at \(layout.journalDirectory.path) ends at entry \(lastSequence), but checkpoint \(newest) "
                + "holds the state as of entry \(newest)", sequence: newest)
    }

    /// The newest checkpoint with a manifest (a folder without one was never finished), or the
    /// anchor's fold mark when it is newer.
    private func newestCheckpoint() throws -> UInt64? {
        let checkpoints = checkpointStore()
        let folder = checkpoints.sequences().first { checkpoints.manifest($0) != nil }
        let anchored = try Journal.guarded("cannot read the anchor at \(layout.anchorDirectory.path)") {
            try anchor.foldMark(signature: checkpoints.signature)?.sequence
        }
        return [folder, anchored].compactMap { $0 }.max()
    }

    /// The projections' fold mark, read from a read-only environment so nothing changes;
    /// `nil` when there are none. Projections that exist but cannot be read (sealed under a
    /// key the lost journal held, say) count as having folded something: `UInt64.max`.
    private func foldedSequenceOfProjections() throws -> UInt64? {
        let file = layout.projectionDirectory.appendingPathComponent("data.mdb")
        let bytes = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        guard bytes > 0 else { return nil }
        // Damaged projections are not mapped; they may have folded anything.
        guard projectionDamage() == nil else { return UInt64.max }
        var environmentOptions = options.environment
        environmentOptions.isReadOnly = true
        do {
            let environment = try Environment(
                directory: layout.projectionDirectory, options: environmentOptions, sealer: nil)
            let fold = try environment.database(named: ProjectionStore.foldDatabaseName)
            let mark = try environment.read { transaction in
                try transaction.get(fold, key: ProjectionStore.foldedThroughKey)
            }
            // A mark that does not read as one is sealed under keys the lost journal held.
            guard let mark else { return 0 }
            return FoldMark(bytes: mark)?.sequence ?? UInt64.max
        } catch let error as LMDBError where error == .notFound {
            return nil
        } catch {
            return UInt64.max
        }
    }

    /// What opening says when the journal lost entries: both positions, that no file changed,
    /// and the two ways back.
    func lostJournalError(_ what: String, sequence: UInt64) -> JournalError {
        JournalError(
            .journalBehind,
            "\(what): the journal lost entries (deleted, truncated or replaced by an older copy); no file was "
                + "changed. Put the journal back from a backup, or run `journal-replay recover "
                + "\(layout.directory.path)` to start a new journal from the projections' state (the damaged "
                + "journal is kept aside); if the journal is the right one, remove \(layout.projectionDirectory.path) "
                + "to rebuild the projections from it",
            sequence: sequence)
    }

    /// What a repair did: the synced snapshot or checkpoint it restored, if any.
    private struct Repair {
        var restored: FoldMark?
        /// The projections, opened, when they were set back to their synced snapshot.
        var snapshotStore: ProjectionStore?
    }

    /// Sets the projections back to their recorded synced snapshot, under the journal's write
    /// lock, after a power loss (decision 0014); `nil`, having changed only the meta pages of
    /// a file that is then replaced, when there is no record or the snapshot does not check.
    ///
    /// Checked: the data file's header, the projections' versions, the fold mark against the
    /// record, and the journal's entry at the mark against the mark's checksum, so only a
    /// snapshot of this journal, continuable from here, is used.
    private func restoreSyncedSnapshot(
        _ opened: JournalEnvironment, in transaction: Transaction
    ) -> (store: ProjectionStore, mark: FoldMark)? {
        guard !layout.projectionDamageNoted, let record = SyncedSnapshotRecord.read(in: layout.projectionDirectory)
        else { return nil }
        let file = layout.projectionDirectory.appendingPathComponent("data.mdb")
        do {
            try record.meta.restore(into: file)
            guard let header = try DataFileHeader.read(from: file),
                header.transactionID == record.meta.transactionID
            else { return nil }
            let store = try openStore()
            let (isCurrent, mark) = try store.environment.read { try (store.isCurrent($0), store.foldedThrough($0)) }
            guard isCurrent, mark == record.foldMark,
                try Journal.continuableChecksum(
                    of: mark.sequence, entries: opened.entries, meta: opened.meta, in: transaction) == mark.checksum
            else { return nil }
            return (store, mark)
        } catch {
            logger.warning("the projections' synced snapshot cannot be restored, using a checkpoint: \(error)")
            return nil
        }
    }

    /// Replaces the projections by their synced snapshot after a power loss, or else by the
    /// newest valid checkpoint, or removes them, under the journal's write lock. Returns `nil`
    /// when another process repaired them first.
    private func repair(
        _ opened: JournalEnvironment, expectedGeneration: UInt64, afterPowerLoss: Bool
    ) throws -> Repair? {
        let checkpoints = checkpointStore()
        return try Journal.guarded("cannot restore the projections") {
            try opened.environment.write { transaction -> Repair? in
                let generation =
                    try transaction.get(opened.meta, key: Journal.repairGenerationKey).flatMap(
                        SequenceKey.decode) ?? 0
                guard generation == expectedGeneration else { return nil }
                func recordRepair() throws {
                    try transaction.put(
                        opened.meta, key: Journal.repairGenerationKey, value: SequenceKey.encode(generation + 1))
                    try transaction.put(
                        opened.meta, key: Journal.unsyncedBootKey, value: Array(opened.bootIdentifier.utf8))
                }
                if afterPowerLoss, let snapshot = restoreSyncedSnapshot(opened, in: transaction) {
                    try recordRepair()
                    return Repair(restored: snapshot.mark, snapshotStore: snapshot.store)
                }
                let files = FileManager.default
                try? files.removeItem(at: layout.projectionDirectory)
                let last = try Journal.lastEntryHead(of: opened.entries, in: transaction).sequence
                let mark = try checkpoints.restoreNearest(
                    atOrBelow: last,
                    entryChecksum: {
                        try Journal.continuableChecksum(
                            of: $0, entries: opened.entries, meta: opened.meta, in: transaction)
                    },
                    into: layout.restoringProjectionDirectory)
                let horizon = try Journal.horizon(meta: opened.meta, in: transaction)
                if mark == nil, horizon.isCompacted {
                    throw JournalError(
                        .belowHorizon,
                        "cannot recover the projections at \(layout.projectionDirectory.path): entries before the "
                            + "horizon, entry \(horizon.firstSequence), were compacted away and no valid checkpoint "
                            + "at or after entry \(horizon.anchorSequence) is left in "
                            + "\(layout.checkpointDirectory.path); restore the store from a backup, or import its "
                            + "archive into a new store", sequence: horizon.firstSequence)
                }
                if mark != nil {
                    try files.moveItem(at: layout.restoringProjectionDirectory, to: layout.projectionDirectory)
                }
                try FileDurability.flushDirectory(layout.directory)
                try recordRepair()
                return Repair(restored: mark)
            }
        }
    }

    /// Why the projections' data file must not be mapped, or `nil` when nothing says so: a
    /// ``DamageNote`` left by a process that met damage in it, or its meta pages and size
    /// (``DataFileHeader``). A failed check is read again once, since a writer in another
    /// process may have been committing while the meta pages were read.
    func projectionDamage() -> String? {
        if let note = DamageNote.read(in: layout.projectionDirectory) {
            return "a process reading them found a damaged page (\(note.message))"
        }
        return StoreLayout.dataFileDamage(layout.projectionDirectory.appendingPathComponent("data.mdb"))?.reason
    }

    /// The live projections; read-only (`MDB_RDONLY`) for a read-only open (decision 0024),
    /// which still notes damage it meets, so the next command does not meet it again.
    func openStore(readOnly: Bool = false) throws -> ProjectionStore {
        var environmentOptions = options.environment
        environmentOptions.isReadOnly = readOnly
        // A process that meets a damaged page leaves a note, so the next open rebuilds
        // instead of crashing again (decision 0013).
        environmentOptions.notesDamage = true
        // The projections are recovered from the journal; syncing them at every commit is
        // exactly the cost this layout removes (decision 0003).
        environmentOptions.flushesOnCommit = false
        // Values are checked on read (checksums, or the cipher's authentication); a failed
        // check leaves the mark `judge` looks for.
        let sealer: any ValueSealer =
            cipher.map { ProjectionCipher(cipher: $0, damageMarker: layout.projectionDamageMarker) }
            ?? ValueChecksummer(damageMarker: layout.projectionDamageMarker)
        let environment = try Environment(
            directory: layout.projectionDirectory, options: environmentOptions, sealer: sealer)
        return try ProjectionStore(projections: projections, in: environment)
    }

    /// The seal of the projections' copies (checkpoints, migrations): the cipher of an
    /// encrypted store, checksums on a plaintext one (decision 0012).
    var projectionSealer: any ValueSealer {
        cipher.map { $0 as any ValueSealer } ?? ValueChecksummer()
    }

    /// The store's checkpoints and its anchor.
    func checkpointStore() -> CheckpointStore {
        var checkpoints = CheckpointStore(
            directory: layout.checkpointDirectory, signature: ProjectionStore.signature(of: projections),
            sealer: projectionSealer)
        checkpoints.anchor = anchor
        return checkpoints
    }

    /// The store's anchor (decision 0016).
    private var anchor: Anchor {
        Anchor(in: layout, sealer: projectionSealer, options: options.environment)
    }
}
