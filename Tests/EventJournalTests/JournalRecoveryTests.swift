import Determinism
import EventJournal
import Foundation
import LMDBStore
import SyncTesting
import Synchronization
import Testing

/// Decision 0003: the journal is the one durable write; the projections are recovered from
/// their last trustworthy state and the journal's tail, and never read when they cannot be
/// trusted.
@Suite struct JournalRecoveryTests {
    /// A store whose machine can "restart" and that checkpoints every `checkpointEvery` entries.
    struct Machine {
        let fixture: JournalFixture
        let boot = ManualBootIdentity()
        var checkpointEvery: UInt64 = 10
        var checkpointsEnabled = true
        var retention = RetentionPolicy.appDefault

        init() throws {
            fixture = try JournalFixture("recovery")
        }

        var options: JournalOptions {
            var options = JournalOptions()
            options.bootIdentity = boot
            options.checkpoints.entryCountMax = checkpointEvery
            options.checkpoints.isEnabled = checkpointsEnabled
            options.retention = retention
            return options
        }

        func open() throws -> Journal {
            try fixture.open(options: options)
        }

        var store: URL { fixture.directory.appending("store") }
        var projectionFile: URL { store.appendingPathComponent("projections/data.mdb") }
    }

    /// Appends entries 1...count one append at a time (so checkpoints fall due along the way),
    /// then stops using the journal as a power loss would: nothing synced, nothing closed.
    private func writeThenLosePower(_ machine: Machine, count: Int) throws {
        let journal = try machine.open()
        for n in 1...count { try journal.append(note("entry \(n)", n)) }
        journal.abandon()
    }

    private func counts(_ journal: Journal) throws -> [String: UInt64] {
        try journal.read { try KindCountsProjection.counts(in: $0) }
    }

    @Test func aStoreClosedCleanlyIsTrustedAfterARestart() throws {
        let machine = try Machine()
        defer { machine.fixture.directory.remove() }
        do {
            let journal = try machine.open()
            try journal.append((1...5).map { note("n\($0)", $0) })
            try journal.close()
            #expect(throws: JournalError.self) { try journal.append(note("late", 6)) }
        }
        machine.boot.restart()
        let reopened = try machine.open()
        #expect(reopened.openingReport.projections == .trusted)
        #expect(reopened.openingReport.foldedEntries == 0)
        #expect(try counts(reopened) == ["note.added": 5])
    }

    @Test func aKilledProcessLeavesProjectionsThatAreTrustedWithoutARestart() throws {
        let machine = try Machine()
        defer { machine.fixture.directory.remove() }
        try writeThenLosePower(machine, count: 25)
        let reopened = try machine.open()
        #expect(reopened.openingReport.projections == .trusted)
        #expect(try counts(reopened) == ["note.added": 25])
        #expect(try reopened.verify().isConsistent)
    }

    /// The damage a power loss can do to files written without a sync, and worse.
    enum Damage: String, CaseIterable, Sendable {
        case flippedBytes, truncated, deleted, stalePlausibleCopy
    }

    @Test(arguments: Damage.allCases)
    func afterAPowerLossTheProjectionsAreRestoredFromTheNewestCheckpointAndNeverRead(damage: Damage) throws {
        let machine = try Machine()
        defer { machine.fixture.directory.remove() }
        var plausible: Data?
        do {
            let journal = try machine.open()
            for n in 1...25 {
                try journal.append(note("entry \(n)", n))
                if n == 25, damage == .stalePlausibleCopy {
                    // A file that opens and looks folded through 25 but holds wrong counts:
                    // trusting it would show 999.
                    let counts = try journal.projectionEnvironment.database(named: KindCountsProjection.databaseName)
                    try journal.projectionEnvironment.write { transaction in
                        try transaction.put(
                            counts, key: Array("note.added".utf8),
                            value: withUnsafeBytes(of: UInt64(999).bigEndian) { Array($0) }
                                + [UInt8](repeating: 0, count: 8))
                    }
                    try journal.projectionEnvironment.flush()
                    plausible = try Data(contentsOf: machine.projectionFile)
                }
            }
            journal.abandon()
        }
        try damage.apply(to: machine.projectionFile, plausible: plausible)
        machine.boot.restart()
        let reopened = try machine.open()
        #expect(reopened.openingReport.projections == .restoredCheckpoint(20))
        #expect(reopened.openingReport.foldedEntries == 5)
        #expect(reopened.openingReport.reason?.contains("restarted") == true)
        #expect(try counts(reopened) == ["note.added": 25])
        #expect(try reopened.verify().isConsistent)
        #expect(try reopened.append(note("after", 26)).sequence == 26)
    }

    @Test func withoutACheckpointAPowerLossRebuildsFromTheFirstEntry() throws {
        var machine = try Machine()
        machine.checkpointsEnabled = false
        defer { machine.fixture.directory.remove() }
        try writeThenLosePower(machine, count: 12)
        try Damage.flippedBytes.apply(to: machine.projectionFile, plausible: nil)
        machine.boot.restart()
        let reopened = try machine.open()
        #expect(reopened.openingReport.projections == .rebuilt)
        #expect(reopened.openingReport.foldedEntries == 12)
        #expect(try counts(reopened) == ["note.added": 12])
        #expect(try reopened.verify().isConsistent)
    }

    @Test func missingProjectionsAreRestoredWithoutARestart() throws {
        let machine = try Machine()
        defer { machine.fixture.directory.remove() }
        try writeThenLosePower(machine, count: 15)
        try FileManager.default.removeItem(at: machine.projectionFile.deletingLastPathComponent())
        let reopened = try machine.open()
        #expect(reopened.openingReport.projections == .restoredCheckpoint(10))
        #expect(reopened.openingReport.reason == "the projections are missing")
        #expect(try counts(reopened) == ["note.added": 15])
    }

    /// Issue 29: which of the two is right cannot be told, so neither is thrown away: opening
    /// is refused, and removing the projections rebuilds them from this journal.
    @Test func projectionsFoldedFromAnotherJournalAreRefusedThenRebuiltOnceRemoved() throws {
        var machine = try Machine()
        machine.checkpointsEnabled = false
        defer { machine.fixture.directory.remove() }
        let other = try JournalFixture("other")
        defer { other.directory.remove() }
        do {
            let journal = try machine.open()
            try journal.append((1...6).map { note("mine \($0)", $0) })
            try journal.close()
            let theirs = try other.open()
            try theirs.append((1...6).map { JournalEntry.Draft(kind: "theirs", header: ["n": .integer(Int64($0))]) })
            try theirs.close()
        }
        let projections = machine.projectionFile.deletingLastPathComponent()
        try FileManager.default.removeItem(at: projections)
        try FileManager.default.copyItem(at: other.directory.appending("store/projections"), to: projections)
        let refusal = try #require(throws: JournalError.self) { try machine.open() }
        #expect(refusal.code == .journalBehind)
        #expect(refusal.message.contains("another history"))
        try FileManager.default.removeItem(at: projections)
        let reopened = try machine.open()
        #expect(reopened.openingReport.projections == .rebuilt)
        #expect(try counts(reopened) == ["note.added": 6])
    }

    /// What another process leaves when it is killed between the journal's commit and the
    /// projections': an entry the projections have not folded. The next write folds it first.
    @Test func anEntryAnotherProcessLeftUnfoldedIsFoldedByTheNextWrite() throws {
        let machine = try Machine()
        defer { machine.fixture.directory.remove() }
        let donor = try JournalFixture("donor")
        defer { donor.directory.remove() }
        let envelope: [UInt8]
        do {
            let journal = try donor.open()
            try journal.append([note("a", 1), note("b", 2), JournalEntry.Draft(kind: "orphan")])
            let entries = try journal.journalEnvironment.database(named: "journal.entries")
            envelope = try #require(
                try journal.journalEnvironment.read {
                    try $0.get(entries, key: withUnsafeBytes(of: UInt64(3).bigEndian) { Array($0) })
                })
        }
        let journal = try machine.open()
        try journal.append([note("a", 1), note("b", 2)])
        let entries = try journal.journalEnvironment.database(named: "journal.entries")
        try journal.journalEnvironment.write { transaction in
            try transaction.put(entries, key: withUnsafeBytes(of: UInt64(3).bigEndian) { Array($0) }, value: envelope)
        }
        #expect(try counts(journal) == ["note.added": 2])
        #expect(try journal.append(note("c", 4)).sequence == 4)
        #expect(try counts(journal) == ["note.added": 3, "orphan": 1])
        #expect(try journal.verify().isConsistent)
    }

    @Test func aDamagedCheckpointIsSkippedForAnOlderOne() throws {
        var machine = try Machine()
        // Every checkpoint stays (a store that bounds its history keeps only its newest).
        machine.retention = .unlimited
        defer { machine.fixture.directory.remove() }
        try writeThenLosePower(machine, count: 25)
        let newest = machine.store.appendingPathComponent("checkpoints/20/data.mdb")
        try Damage.flippedBytes.apply(to: newest, plausible: nil)
        machine.boot.restart()
        let reopened = try machine.open()
        #expect(reopened.openingReport.projections == .restoredCheckpoint(10))
        #expect(reopened.openingReport.foldedEntries == 15)
        #expect(!FileManager.default.fileExists(atPath: newest.path))
        #expect(try counts(reopened) == ["note.added": 25])
        #expect(try reopened.verify().isConsistent)
    }

    /// Before its first compaction, a store whose retention bounds its history keeps only its
    /// newest checkpoint, a copy of the projections, as the anchor stands alone after it; one
    /// keeping everything keeps every checkpoint, for `state --as-of`. A damaged checkpoint with
    /// none older is replaced by a fold from the first entry.
    @Test func beforeItsFirstCompactionABoundedStoreKeepsOnlyItsNewestCheckpoint() throws {
        let fixture = try JournalFixture("bounded-checkpoints")
        defer { fixture.directory.remove() }
        for retention in [RetentionPolicy.appDefault, .unlimited] {
            var options = JournalOptions()
            options.retention = retention
            options.checkpoints.entryCountMax = 3
            let journal = try fixture.open(options: options, subdirectory: "\(retention.boundsHistory)")
            for n in 1...12 { try journal.append(note("n", n)) }
            let kept = try journal.statistics().checkpointSequences.sorted()
            #expect(try !journal.horizon().isCompacted)
            #expect(kept == (retention.boundsHistory ? [12] : [3, 6, 9, 12]), "\(retention)")
            #expect(try journal.verify().isConsistent)
            try journal.close()
        }
    }

    /// With no older checkpoint to fall back on, a bounded store whose only checkpoint is found
    /// damaged after a power loss folds the whole journal, which it still has.
    @Test func aBoundedStoresOnlyCheckpointFoundDamagedIsReplacedByAFoldFromTheFirstEntry() throws {
        let machine = try Machine()
        defer { machine.fixture.directory.remove() }
        try writeThenLosePower(machine, count: 25)
        #expect(
            try FileManager.default.contentsOfDirectory(
                atPath: machine.store.appendingPathComponent("checkpoints").path
            )
            .filter { Int($0) != nil } == ["20"])
        let only = machine.store.appendingPathComponent("checkpoints/20/data.mdb")
        try Damage.flippedBytes.apply(to: only, plausible: nil)
        machine.boot.restart()
        let reopened = try machine.open()
        #expect(reopened.openingReport.projections == .rebuilt)
        #expect(try counts(reopened) == ["note.added": 25])
        #expect(try reopened.verify().isConsistent)
    }

    @Test func checkpointsFallDueByEntriesByJournalBytesAndByTime() throws {
        let fixture = try JournalFixture("policy")
        defer { fixture.directory.remove() }
        func checkpoints(_ journal: Journal) throws -> [UInt64] { try journal.statistics().checkpointSequences }
        var options = JournalOptions()
        options.checkpoints.entryCountMax = 4
        // Every checkpoint stays (a store that bounds its history keeps only its newest).
        options.retention = .unlimited
        let byEntries = try fixture.open(options: options, subdirectory: "entries")
        for n in 1...9 { try byEntries.append(note("n", n)) }
        #expect(try checkpoints(byEntries) == [4, 8])

        options = JournalOptions()
        options.checkpoints.journalBytesMax = 64 << 10
        let byBytes = try fixture.open(options: options, subdirectory: "bytes")
        let large = incompressibleBytes(20 << 10)
        for _ in 1...5 { try byBytes.append(JournalEntry.Draft(kind: "blob", payload: large)) }
        #expect(try checkpoints(byBytes).count == 1)

        options = JournalOptions()
        options.checkpoints.intervalMax = .seconds(60)
        let byTime = try fixture.open(options: options, subdirectory: "time")
        try byTime.append(JournalEntry.Draft(kind: "first", timestamp: WallTime(millisecondsSinceEpoch: 1_000_000)))
        try byTime.append(JournalEntry.Draft(kind: "soon", timestamp: WallTime(millisecondsSinceEpoch: 1_030_000)))
        #expect(try checkpoints(byTime).isEmpty)
        try byTime.append(JournalEntry.Draft(kind: "later", timestamp: WallTime(millisecondsSinceEpoch: 1_061_000)))
        #expect(try checkpoints(byTime) == [3])

        options = JournalOptions()
        options.checkpoints.entryCountMax = 1
        options.checkpoints.isEnabled = false
        let disabled = try fixture.open(options: options, subdirectory: "disabled")
        for n in 1...3 { try disabled.append(note("n", n)) }
        #expect(try checkpoints(disabled).isEmpty)
    }

    @Test func stateAsOfAnySequenceStartsFromTheStoresOwnCheckpoints() throws {
        var machine = try Machine()
        // Every checkpoint stays (a store that bounds its history keeps only its newest).
        machine.retention = .unlimited
        defer { machine.fixture.directory.remove() }
        let journal = try machine.open()
        for n in 1...35 { try journal.append(note("n\(n)", n)) }
        #expect(try journal.statistics().checkpointSequences == [10, 20, 30])
        for sequence: UInt64 in [5, 10, 23, 35] {
            let count = try journal.withState(asOf: sequence) { state, _ in
                try state.transaction.get(
                    state.database(named: KindCountsProjection.databaseName), key: Array("note.added".utf8)
                )
                .map { $0.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
            }
            #expect(count == sequence)
        }
    }

    @Test func openingReportsProgressOfALongFold() throws {
        var machine = try Machine()
        machine.checkpointsEnabled = false
        defer { machine.fixture.directory.remove() }
        try writeThenLosePower(machine, count: 30)
        machine.boot.restart()
        let seen = Mutex<[OpeningProgress]>([])
        var options = machine.options
        options.rebuildBatchSize = 8
        options.openingProgress = { progress in seen.withLock { $0.append(progress) } }
        _ = try machine.fixture.open(options: options)
        #expect(seen.withLock { $0.map(\.folded) } == [8, 16, 24, 30])
        #expect(seen.withLock { $0.allSatisfy { $0.phase == .recovering && $0.total == 30 } })
    }
}

extension JournalRecoveryTests.Damage {
    /// Damage beyond what a power loss does, since it reaches synced pages too: the synced
    /// snapshot (decision 0014) cannot stand either, so its record goes with it and these
    /// tests see the checkpoint path. `SyncedSnapshotTests` covers the snapshot's own.
    func apply(to file: URL, plausible: Data?) throws {
        try? FileManager.default.removeItem(
            at: file.deletingLastPathComponent().appendingPathComponent("synced-snapshot"))
        switch self {
        case .flippedBytes:
            var bytes = try Data(contentsOf: file)
            // Both meta pages and a spread of data pages.
            for offset in stride(from: 16, to: bytes.count, by: 1_531) { bytes[offset] ^= 0xA5 }
            try bytes.write(to: file)
        case .truncated:
            let bytes = try Data(contentsOf: file)
            try bytes.prefix(bytes.count / 3).write(to: file)
        case .deleted:
            try FileManager.default.removeItem(at: file)
        case .stalePlausibleCopy:
            try #require(plausible).write(to: file)
        }
    }
}
