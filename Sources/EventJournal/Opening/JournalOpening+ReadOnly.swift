import Determinism
import Foundation
import LMDBStore

// Opening a store only to read it (``JournalOptions/isReadOnly``, decision 0024): the same
// judgement of the projections as a writing open, but nothing is converted, repaired or noted.
// Projections that can be read as they are and have folded the whole journal are read in
// place, through a read-only environment; any other state is folded in a scratch copy.
extension JournalOpening {
    /// What a read-only open found the live projections to be.
    private enum ReadOnlyVerdict {
        /// Current and a fold of a prefix of this journal, through `mark`.
        case readable(ProjectionStore, mark: FoldMark)
        /// Not to be read as they are; a writing open would restore or rebuild them.
        case unusable(reason: String, damage: String? = nil)
    }

    /// Opens both environments with `MDB_RDONLY` and settles on projections without writing
    /// a byte of the store.
    func openReadOnly() throws -> Opened {
        if layout.holdsFormatOneStore {
            throw formatOneError
        }
        // Checked before LMDB maps the file, as in a writing open.
        try layout.requireUndamagedJournal()
        var environmentOptions = options.environment
        environmentOptions.isReadOnly = true
        let journalEnvironment: Environment
        let entries: Database
        let meta: Database
        do {
            journalEnvironment = try Environment(
                directory: layout.journalDirectory, options: environmentOptions, sealer: cipher)
            entries = try journalEnvironment.database(named: Journal.entriesDatabaseName)
            meta = try journalEnvironment.database(named: Journal.metaDatabaseName)
        } catch {
            throw JournalError(
                .storage, "cannot open the journal at \(layout.journalDirectory.path) to read it: \(error)",
                cause: error)
        }
        try readKeys(journalEnvironment)
        try requireCurrentFormat(journalEnvironment, entries: entries, meta: meta)
        let bootIdentifier: String
        do {
            bootIdentifier = try options.bootIdentity.current()
        } catch {
            throw JournalError(.storage, "cannot read the machine's boot identity: \(error)", cause: error)
        }
        let journal = JournalEnvironment(
            environment: journalEnvironment, entries: entries, meta: meta, bootIdentifier: bootIdentifier)
        let state = try journalState(journal)
        let settled = try settle(state: state, journal: journal)
        return Opened(
            layout: layout, journalEnvironment: journalEnvironment, entries: entries, meta: meta,
            store: settled.store, bootIdentifier: bootIdentifier, report: settled.report,
            needsReset: settled.needsReset, foldPhase: settled.foldPhase, scratchDirectory: settled.scratchDirectory)
    }

    /// The projections a read-only open settled on.
    private struct Settled {
        var store: ProjectionStore
        var report = OpeningReport(projections: .trusted)
        var needsReset = false
        var foldPhase = OpeningProgress.Phase.catchingUp
        var scratchDirectory: URL?
    }

    /// The live projections when they have folded the whole journal; else a scratch copy of
    /// them, which the journal then folds forward; else a scratch store restored from a
    /// checkpoint, or empty, which it folds from there.
    private func settle(state: JournalState, journal: JournalEnvironment) throws -> Settled {
        switch try judgeReadOnly(state, journal: journal) {
        case .readable(let store, let mark) where mark.sequence == state.lastSequence:
            return Settled(store: store)
        case .readable(let store, _):
            // A writer was killed before folding its last entries: fold them in a copy.
            let scratch = Journal.scratchDirectoryURL()
            try Journal.guarded("cannot copy the projections at \(layout.projectionDirectory.path)") {
                try store.environment.copy(to: scratch, compact: true)
            }
            return Settled(store: try scratchStore(scratch), scratchDirectory: scratch)
        case .unusable(let reason, let damage):
            let scratch = Journal.scratchDirectoryURL()
            var report = OpeningReport(projections: .rebuilt, reason: reason)
            report.projectionsDamage = damage
            var settled = Settled(
                store: try restoreCheckpointOrEmpty(
                    below: state.lastSequence, journal: journal, into: scratch, report: &report))
            settled.report = report
            settled.needsReset = report.projections == .rebuilt
            settled.foldPhase = .recovering
            settled.scratchDirectory = scratch
            return settled
        }
    }

    /// A scratch store in `scratch`: the newest valid checkpoint when one is current (noted in
    /// `report`), else an empty one, which the journal resets and folds from the horizon.
    private func restoreCheckpointOrEmpty(
        below last: UInt64, journal: JournalEnvironment, into scratch: URL, report: inout OpeningReport
    ) throws -> ProjectionStore {
        guard let mark = try restoreCheckpoint(below: last, journal: journal, into: scratch) else {
            return try scratchStore(scratch)
        }
        let restored = try scratchStore(scratch)
        // A checkpoint of other projection versions is emptied by the reset, as a writing open does.
        if try restored.environment.read({ try restored.isCurrent($0) }) {
            report.projections = .restoredCheckpoint(mark.sequence)
        }
        return restored
    }

    /// The live projections' verdict, read through a read-only environment: the checks of a
    /// writing open, in the same order, with "restore or rebuild" answered by `.unusable`.
    private func judgeReadOnly(_ state: JournalState, journal: JournalEnvironment) throws -> ReadOnlyVerdict {
        guard FileManager.default.fileExists(atPath: layout.projectionDirectory.appendingPathComponent("data.mdb").path)
        else {
            return .unusable(reason: "the projections are missing")
        }
        if let boot = state.unsyncedBoot, boot != journal.bootIdentifier {
            return .unusable(
                reason: "the machine restarted (boot \(boot), now \(journal.bootIdentifier)) after the projections "
                    + "were written without a sync")
        }
        if let damage = projectionDamage() {
            return .unusable(reason: "the projections are damaged: \(damage)", damage: damage)
        }
        let store: ProjectionStore
        let isCurrent: Bool
        let mark: FoldMark
        do {
            store = try openStore(readOnly: true)
            (isCurrent, mark) = try store.environment.read { try (store.isCurrent($0), store.foldedThrough($0)) }
        } catch {
            return .unusable(
                reason: "the projections cannot be read as they are: \(error)",
                damage: Journal.isDamagedPage(error) ? "\(error)" : nil)
        }
        // A journal behind its projections is refused as a writing open refuses it (decision 0009).
        var state = state
        if mark.sequence > state.lastSequence { state = try journalState(journal) }
        guard mark.sequence <= state.lastSequence else {
            throw lostJournalError(
                "the journal at \(layout.journalDirectory.path) ends at entry \(state.lastSequence), but the "
                    + "projections have folded through entry \(mark.sequence)",
                sequence: mark.sequence)
        }
        guard isCurrent else { return .unusable(reason: "the projections were built by other projection versions") }
        if let reason = try distrust(ofMark: mark, state: state, journal: journal) {
            return .unusable(reason: reason)
        }
        return .readable(store, mark: mark)
    }

    /// The newest valid checkpoint at or below `last`, copied into `scratch`; checkpoints that
    /// fail their checks are skipped, not removed.
    private func restoreCheckpoint(below last: UInt64, journal: JournalEnvironment, into scratch: URL) throws
        -> FoldMark?
    {
        var checkpoints = checkpointStore()
        checkpoints.isReadOnly = true
        return try Journal.guarded("cannot read the checkpoints at \(layout.checkpointDirectory.path)") {
            try journal.environment.read { transaction in
                try checkpoints.restoreNearest(
                    atOrBelow: last,
                    entryChecksum: {
                        try Journal.continuableChecksum(
                            of: $0, entries: journal.entries, meta: journal.meta, in: transaction)
                    },
                    into: scratch)
            }
        }
    }

    /// A writable, never synced projection store in the scratch directory `directory`.
    private func scratchStore(_ directory: URL) throws -> ProjectionStore {
        var environmentOptions = EnvironmentOptions()
        environmentOptions.flushesOnCommit = false
        environmentOptions.namedDatabaseCountMax = options.environment.namedDatabaseCountMax
        return try Journal.guarded("cannot make a scratch copy of the projections in \(directory.path)") {
            try ProjectionStore(
                projections: projections,
                in: Environment(directory: directory, options: environmentOptions, sealer: projectionSealer))
        }
    }

    // MARK: - Keys and format, read only

    /// Reads the store's key record with the app's key; a store without one and a key is refused,
    /// since making a key record writes.
    private func readKeys(_ environment: Environment) throws {
        let record: [UInt8]? = try Journal.guarded("cannot read the journal's keys") {
            let keys: Database
            do {
                keys = try environment.database(named: StoreCipher.keysDatabaseName)
            } catch let error as LMDBError where error == .notFound {
                return nil
            }
            return try environment.read { try $0.get(keys, key: StoreCipher.keyRecordKey) }
        }
        switch (record, options.encryption, cipher) {
        case (nil, nil, _):
            return
        case (.some, nil, _):
            throw JournalError(.keyRequired, "the store at \(layout.directory.path) is encrypted: open it with its key")
        case (.some(let record), .some(let key), .some(let cipher)):
            cipher.keyRing = try keyRing(record: record, appKey: key)
        case (nil, .some(let key), _):
            try refuseLostKeyRecord(appKey: key)
            throw JournalError(
                .notEncrypted,
                "the store at \(layout.directory.path) was created without a key and is not encrypted; "
                    + "open it without one")
        case (_, .some, nil):
            preconditionFailure("a journal opened with a key always has a cipher")
        }
    }

    /// Refuses a journal this build cannot read without converting it.
    private func requireCurrentFormat(_ environment: Environment, entries: Database, meta: Database) throws {
        let stored: UInt32? = try Journal.guarded("cannot read the journal's format version") {
            try environment.read { transaction in
                guard let stored = try Journal.recordedFormatVersion(meta: meta, in: transaction) else {
                    // No version and no entries is a new store; entries without one are format 1.
                    return try transaction.entryCount(entries) == 0 ? Journal.formatVersion : 1
                }
                return stored
            }
        }
        guard let stored, stored >= 2 else { throw formatOneError }
        guard stored <= Journal.formatVersion else {
            throw JournalError(
                .newerFormat,
                "the journal at \(environment.directory.path) has format \(stored), newer than the "
                    + "\(Journal.formatVersion) this SyncJournal reads; open it with a newer SyncJournal")
        }
    }

    private var formatOneError: JournalError {
        JournalError(
            .needsMigration,
            "\(layout.directory.path) is a store of format 1, which is read only after conversion; convert it "
                + "by opening it for writing (`journal-replay rebuild \(layout.directory.path)`)")
    }
}
