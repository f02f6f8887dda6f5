import EventJournal
import Foundation
import LMDBStore
import SyncCore
import SyncTesting
import Testing

/// Planted LMDB failures: what the journal does when the map fills at commit, the reader
/// table is full, or a commit fails outright.
@Suite struct JournalFaultTests {
    @Test func aMapFullAtCommitGrowsTheMapAndTheAppendSucceeds() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        let before = journal.environment.mapSizeBytes
        journal.environment.faults.inject(.mapFull, on: .commit)
        let entry = try journal.append(note("survives", 1))
        #expect(entry.sequence == 1)
        #expect(journal.environment.mapSizeBytes == before * 2)
        #expect(try journal.verify().isConsistent)
    }

    @Test func aFullReaderTableIsATypedStorageError() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        try journal.append(note("a", 1))
        journal.environment.faults.inject(.readersFull, on: .begin)
        let error = try #require(throws: JournalError.self) { try journal.lastSequence() }
        #expect(error.code == .storage)
        #expect((error.cause as? LMDBError) == .readersFull)
        #expect(error.message.contains("MDB_READERS_FULL"))
        #expect(try journal.lastSequence() == 1)
    }

    @Test(arguments: [LMDBFaults.Operation.put, .commit])
    func aFailedWriteStoresNothingAndTheJournalCarriesOn(operation: LMDBFaults.Operation) throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        try journal.append([note("a", 1), note("b", 2)])
        journal.environment.faults.inject(LMDBError(rawValue: 5), on: operation)  // EIO
        let error = try #require(throws: JournalError.self) { try journal.append([note("c", 3), note("d", 4)]) }
        #expect(error.code == .storage)
        #expect(try journal.lastSequence() == 2)
        #expect(try journal.append(note("e", 5)).sequence == 3)
        #expect(try journal.read { try KindCountsProjection.counts(in: $0) } == ["note.added": 3])
        #expect(try journal.verify().isConsistent)
    }

    @Test func aDiskFullErrorIsRetryable() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        journal.environment.faults.inject(LMDBError(rawValue: 28), on: .commit)  // ENOSPC
        let error = try #require(throws: JournalError.self) { try journal.append(note("a", 1)) }
        #expect(error.code == .storageFull)
        #expect(error.isRetryable)
        #expect(try journal.append(note("a", 1)).sequence == 1)
    }
}
