import Determinism
import EventJournal
import Foundation
import Logging
import MobileSync
import Soups
import SyncTesting
import Testing

/// The drafts go through a real LMDB journal: the payload, header types and kinds are what the
/// journal accepts and returns.
@Suite struct SyncJournalRoundTripTests {
    @Test func stateAndPageEntriesSurviveAppendAndRead() throws {
        let directory = try TemporaryDirectory("mobilesync")
        defer { directory.remove() }
        let clock = ManualWallClock(WallTime(millisecondsSinceEpoch: 1_700_000_000_000), tick: .milliseconds(1))
        let journal = try Journal(directory: directory.appending("store"), clock: clock, logger: .discarding)
        var state = try SyncStateTests.soqlState()
        let page = SyncJournalEntryTests.page()
        state.start(at: 1_700_000_000_000)
        let appended = try journal.append([
            try SyncStateTests.soqlState().createdEntryDraft, state.changedEntryDraft, page.journalDraft,
        ])
        let read = try journal.entries(in: appended[0].sequence...appended[2].sequence)
        #expect(try SyncState(journalEntry: read[0]) == SyncStateTests.soqlState())
        #expect(try SyncState(journalEntry: read[1]) == state)
        #expect(try SyncDownPage(journalEntry: read[2]) == page)
        #expect(read[2].payload == page.records)
        #expect(try journal.count(of: .syncDownPageFetched) == 1)
    }

    @Test func journalRefusesAPageWhoseRecordsAreNotJSON() throws {
        let directory = try TemporaryDirectory("mobilesync")
        defer { directory.remove() }
        let journal = try Journal(
            directory: directory.appending("store"), clock: ManualWallClock(), logger: .discarding)
        var page = SyncJournalEntryTests.page()
        page.records = Array("[{".utf8)
        #expect(throws: JournalError.self) { try journal.append(page.journalDraft) }
        #expect(try journal.lastSequence() == 0)
    }
}
