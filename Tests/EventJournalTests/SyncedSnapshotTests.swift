import Determinism
import EventJournal
import Foundation
import LMDBStore
import SyncTesting
import Testing

/// Decision 0014: the projections' recovery point after a power loss is their own file, synced
/// and pinned, with the pinned snapshot's meta page recorded beside it.
@Suite struct SyncedSnapshotTests {
    /// A store that pins a newer snapshot every `snapshotEvery` entries and writes no
    /// checkpoint copies in between, whose machine can restart.
    struct Machine {
        let fixture: JournalFixture
        let boot = ManualBootIdentity()
        var snapshotEvery: UInt64 = 10

        init() throws {
            fixture = try JournalFixture("snapshot")
        }

        var options: JournalOptions {
            var options = JournalOptions()
            options.bootIdentity = boot
            options.checkpoints.entryCountMax = 1_000_000
            options.checkpoints.snapshotEntryCountMax = snapshotEvery
            options.checkpoints.pinsSyncedSnapshots = true
            return options
        }

        func open() throws -> Journal {
            try fixture.open(options: options)
        }

        var store: URL { fixture.directory.appending("store") }
        var projections: URL { store.appendingPathComponent("projections") }
        var projectionFile: URL { projections.appendingPathComponent("data.mdb") }
    }

    private func counts(_ journal: Journal) throws -> [String: UInt64] {
        try journal.read { try KindCountsProjection.counts(in: $0) }
    }

    /// Appends entries 1...count one at a time, then stops as a power loss would.
    private func writeThenLosePower(_ machine: Machine, count: Int) throws {
        let journal = try machine.open()
        for n in 1...count { try journal.append(note("entry \(n)", n)) }
        journal.abandon()
    }

    @Test(arguments: 0..<8)
    func aPowerLossReopensTheSyncedSnapshotAndFoldsOnlyTheEntriesAfterIt(damage: Int) throws {
        let machine = try Machine()
        defer { machine.fixture.directory.remove() }
        try writeThenLosePower(machine, count: 25)
        #expect(SyncedSnapshotRecord.read(in: machine.projections)?.foldedSequence == 20)
        try PowerLossDamage.damageUnsyncedProjections(of: machine.store, how: UInt64(damage) &* 7_919 &+ 3)
        machine.boot.restart()
        let reopened = try machine.open()
        #expect(reopened.openingReport.projections == .restoredSyncedSnapshot(20))
        #expect(reopened.openingReport.foldedEntries == 5)
        #expect(reopened.openingReport.reason?.contains("restarted") == true)
        #expect(try counts(reopened) == ["note.added": 25])
        #expect(try reopened.verify().isConsistent)
        #expect(try reopened.append(note("after", 26)).sequence == 26)
        // No checkpoint was needed for any of it.
        #expect(!FileManager.default.fileExists(atPath: machine.store.appendingPathComponent("checkpoints").path))
    }

    @Test func laterWritesNeverTouchAPageOfTheRecordedSnapshot() throws {
        var machine = try Machine()
        machine.snapshotEvery = 20
        defer { machine.fixture.directory.remove() }
        let journal = try machine.open()
        for n in 1...20 { try journal.append(note("entry \(n)", n)) }
        let record = try #require(SyncedSnapshotRecord.read(in: machine.projections))
        #expect(record.foldedSequence == 20)
        let atPin = try Data(contentsOf: machine.projectionFile)
        // Deletes and rewrites too: every later commit frees pages of the snapshot's trees.
        for n in 21...39 { try journal.append(note(String(repeating: "x", count: 100 * n), n)) }
        let now = try Data(contentsOf: machine.projectionFile)
        let free = try DataFileHeader.freePages(of: record.meta, in: machine.projectionFile)
        let pageSize = record.meta.pageSizeBytes
        var checked = 0
        for page in 2...record.meta.lastPage where !free.contains(page) {
            let range = Int(page) * pageSize..<Int(page + 1) * pageSize
            #expect(atPin[range] == now[range], "page \(page) of the pinned snapshot changed")
            checked += 1
        }
        #expect(checked > 2)
        #expect(now.count > atPin.count || now != atPin)
    }

    /// LMDB's reader slots are per process: a second open of the same file resets them, and
    /// closing either environment clears them all, so a pin can end behind its holder's back.
    @Test func aPinEndedByAnotherOpenOfTheStoreInTheProcessIsTakenAgainBeforeTheNextWrite() throws {
        var machine = try Machine()
        machine.snapshotEvery = 1_000
        defer { machine.fixture.directory.remove() }
        var first: Journal? = try machine.open()
        for n in 1...5 { try first?.append(note("entry \(n)", n)) }
        first?.abandon()
        let second = try machine.open()
        try second.append(note("entry 6", 6))
        let pinnedBySecond = try #require(SyncedSnapshotRecord.read(in: machine.projections))
        let atPin = try Data(contentsOf: machine.projectionFile)
        first = nil  // closing it clears every reader slot of this process, the second's pin too
        for n in 7...30 { try second.append(note(String(repeating: "y", count: 100 * n), n)) }
        let record = try #require(SyncedSnapshotRecord.read(in: machine.projections))
        if record == pinnedBySecond {
            // Not taken again: then no page of the snapshot may have changed.
            let now = try Data(contentsOf: machine.projectionFile)
            let free = try DataFileHeader.freePages(of: record.meta, in: machine.projectionFile)
            let size = record.meta.pageSizeBytes
            for page in 2...record.meta.lastPage where !free.contains(page) {
                let range = Int(page) * size..<Int(page + 1) * size
                #expect(atPin[range] == now[range], "page \(page) of the recorded snapshot changed")
            }
        }
        #expect(record != pinnedBySecond, "the pin was not taken again after the other environment closed")
        second.abandon()
        try PowerLossDamage.damageUnsyncedProjections(of: machine.store, how: 2)
        machine.boot.restart()
        let reopened = try machine.open()
        #expect(reopened.openingReport.projections == .restoredSyncedSnapshot(record.foldedSequence))
        #expect(try counts(reopened) == ["note.added": 30])
        #expect(try reopened.verify().isConsistent)
    }

    /// Records a power loss cannot leave: the record damaged, or a data file shorter than the
    /// snapshot's last page (not what a synced file can become).
    enum RecordMismatch: CaseIterable, Sendable {
        case damagedRecord, fileShorterThanTheSnapshot
    }

    @Test(arguments: RecordMismatch.allCases)
    func aSnapshotThatDoesNotCheckIsNotUsedAndTheStoreRebuilds(mismatch: RecordMismatch) throws {
        let machine = try Machine()
        defer { machine.fixture.directory.remove() }
        try writeThenLosePower(machine, count: 15)
        switch mismatch {
        case .damagedRecord:
            let recordFile = machine.projections.appendingPathComponent("synced-snapshot")
            var bytes = try Data(contentsOf: recordFile)
            bytes[40] ^= 0x01
            try bytes.write(to: recordFile)
            #expect(SyncedSnapshotRecord.read(in: machine.projections) == nil)
        case .fileShorterThanTheSnapshot:
            let record = try #require(SyncedSnapshotRecord.read(in: machine.projections))
            let bytes = try Data(contentsOf: machine.projectionFile)
            try bytes.prefix(Int(record.meta.lastPage) * record.meta.pageSizeBytes).write(to: machine.projectionFile)
        }
        machine.boot.restart()
        let reopened = try machine.open()
        #expect(reopened.openingReport.projections == .rebuilt)
        #expect(try counts(reopened) == ["note.added": 15])
        #expect(try reopened.verify().isConsistent)
    }

    @Test func aStoreWithSnapshotsTurnedOnRecordsOneAtTheFirstWrite() throws {
        let fixture = try JournalFixture("snapshot-turned-on")
        defer { fixture.directory.remove() }
        var options = JournalOptions()
        options.checkpoints.pinsSyncedSnapshots = true
        let journal = try fixture.open(options: options)
        for n in 1...5 { try journal.append(note("entry \(n)", n)) }
        let projections = fixture.directory.appending("store").appendingPathComponent("projections")
        #expect(SyncedSnapshotRecord.read(in: projections) != nil)
    }

    @Test func theDefaultPolicyPinsNothingYet() throws {
        let fixture = try JournalFixture("snapshot-default")
        defer { fixture.directory.remove() }
        let options = JournalOptions()
        let journal = try fixture.open(options: options)
        for n in 1...5 { try journal.append(note("entry \(n)", n)) }
        let projections = fixture.directory.appending("store").appendingPathComponent("projections")
        #expect(SyncedSnapshotRecord.read(in: projections) == nil)
    }

    @Test func aStoreWithoutCheckpointsPinsNothing() throws {
        let fixture = try JournalFixture("snapshot-off")
        defer { fixture.directory.remove() }
        var options = JournalOptions()
        options.checkpoints.isEnabled = false
        options.checkpoints.pinsSyncedSnapshots = true
        let journal = try fixture.open(options: options)
        for n in 1...5 { try journal.append(note("entry \(n)", n)) }
        let projections = fixture.directory.appending("store").appendingPathComponent("projections")
        #expect(SyncedSnapshotRecord.read(in: projections) == nil)
    }
}
