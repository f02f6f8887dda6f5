import EventJournal
import Foundation
import LMDBStore
import SyncTesting
import Testing

/// Planted LMDB failures in either environment: what the journal does when a map fills at
/// commit, the reader table is full, or a write fails outright.
@Suite struct JournalFaultTests {
    @Test func aMapFullAtTheJournalsCommitGrowsItsMapAndTheAppendSucceeds() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        let before = journal.journalEnvironment.mapSizeBytes
        journal.journalEnvironment.faults.inject(.mapFull, on: .commit)
        let entry = try journal.append(note("survives", 1))
        #expect(entry.sequence == 1)
        #expect(journal.journalEnvironment.mapSizeBytes == before * 2)
        #expect(try journal.read { try KindCountsProjection.counts(in: $0) } == ["note.added": 1])
        #expect(try journal.verify().isConsistent)
    }

    @Test func aMapFullWhileFoldingGrowsTheProjectionsMapAndTheAppendSucceeds() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        let before = journal.projectionEnvironment.mapSizeBytes
        journal.projectionEnvironment.faults.inject(.mapFull, on: .put)
        let entry = try journal.append(note("survives", 1))
        #expect(entry.sequence == 1)
        #expect(journal.projectionEnvironment.mapSizeBytes == before * 2)
        #expect(try journal.lastSequence() == 1)
        #expect(try journal.verify().isConsistent)
    }

    @Test func aFullReaderTableIsATypedStorageError() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        try journal.append(note("a", 1))
        for environment in [journal.projectionEnvironment, journal.journalEnvironment] {
            environment.faults.inject(.readersFull, on: .begin)
            let error = try #require(throws: JournalError.self) { try journal.entry(at: 1) }
            #expect(error.code == .storage)
            #expect((error.cause as? LMDBError) == .readersFull)
            #expect(error.message.contains("MDB_READERS_FULL"))
        }
        #expect(try journal.lastSequence() == 1)
    }

    /// A failure before the journal commits stores nothing, whichever environment it hits.
    @Test(arguments: [
        (LMDBFaults.Operation.put, false), (.commit, false), (.put, true), (.begin, true),
    ])
    func aWriteThatFailsBeforeTheJournalCommitsStoresNothing(operation: LMDBFaults.Operation, inProjections: Bool)
        throws
    {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        try journal.append([note("a", 1), note("b", 2)])
        let environment = inProjections ? journal.projectionEnvironment : journal.journalEnvironment
        environment.faults.inject(LMDBError(rawValue: 5), on: operation)  // EIO
        let error = try #require(throws: JournalError.self) { try journal.append([note("c", 3), note("d", 4)]) }
        #expect(error.code == .storage)
        #expect(try journal.lastSequence() == 2)
        #expect(try journal.append(note("e", 5)).sequence == 3)
        #expect(try journal.read { try KindCountsProjection.counts(in: $0) } == ["note.added": 3])
        #expect(try journal.verify().isConsistent)
    }

    /// The journal is the durable write: once it committed, the append happened, even when the
    /// projections' own commit then fails. They are folded again before anything is read.
    @Test func aFailedProjectionCommitAfterTheJournalCommittedKeepsTheAppend() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        try journal.append(note("a", 1))
        // EIO at the append's commit, then at the immediate refold's: the next read folds.
        journal.projectionEnvironment.faults.inject(LMDBError(rawValue: 5), on: .commit)
        journal.projectionEnvironment.faults.inject(LMDBError(rawValue: 5), on: .commit)
        let entry = try journal.append(note("b", 2))
        #expect(entry.sequence == 2)
        #expect(try journal.lastSequence() == 2)
        #expect(try journal.read { try KindCountsProjection.counts(in: $0) } == ["note.added": 2])
        #expect(try journal.verify().isConsistent)
    }

    @Test func aDiskFullErrorIsRetryable() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        journal.journalEnvironment.faults.inject(LMDBError(rawValue: 28), on: .commit)  // ENOSPC
        let error = try #require(throws: JournalError.self) { try journal.append(note("a", 1)) }
        #expect(error.code == .storageFull)
        #expect(error.isRetryable)
        #expect(try journal.append(note("a", 1)).sequence == 1)
    }
}
