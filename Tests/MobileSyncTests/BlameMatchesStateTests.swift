import Determinism
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import SyncReplay
import SyncTesting
import Testing

/// `blame` tells what the fold did: for every record of every recorded session, the last event of
/// its history holds the record as the store holds it, and an event that left a record alone
/// holds it as the event before it did.
@Suite struct BlameMatchesStateTests {
    @Test(arguments: RecordedSessionTests.casePaths)
    func everyRecordsLastEventIsTheStoredRecord(path: String) throws {
        let directory = try TemporaryDirectory("blame-state")
        defer { directory.remove() }
        let store = try SyncStore(
            directory: directory.appending("store"), clock: ManualWallClock(), logger: .discarding)
        let session = RecordedSessionTests.journals.appendingPathComponent(path).appendingPathComponent("session.jsonl")
        try store.journal.importEntries(from: session)
        for soup in try store.soups.soupNames() {
            let records = try store.soups.query(.all(soup, pageSize: 100_000))
            let ids = try records.map { try String(#require($0["_soupEntryId"]?.number?.int64Value)) }
            let histories = try RecordHistory.histories(journal: store.journal, soup: soup, ids: ids)
            for (record, history) in zip(records, histories) {
                let events = history.events(ofEntryId: try #require(Int64(history.id)))
                #expect(!events.isEmpty, "\(path) \(soup) \(history.id) has no history")
                #expect(events.last?.record == record, "\(path) \(soup) \(history.id): \(events)")
                Self.expectLeftAloneEventsChangeNothing(events, "\(path) \(soup) \(history.id)")
                for event in history.events {
                    #expect(
                        !event.action.hasSuffix("(no rule said why)"), "\(path) #\(event.sequence): \(event.action)")
                }
            }
        }
    }

    /// Each event saying the fold left the record as it was holds the record of the event before.
    static func expectLeftAloneEventsChangeNothing(_ events: [RecordHistory.Event], _ context: String) {
        for (before, event) in zip(events, events.dropFirst())
        where event.action.hasSuffix("left as it was") || event.action.hasSuffix("kept the local change") {
            #expect(event.record == before.record, "\(context) #\(event.sequence): \(event.action)")
        }
    }

    @Test func aRecordFetchedAgainUnchangedIsLeftAsItWasAndNotOverwritten() async throws {
        try await SyncHarness.with(accounts: 3) { harness in
            let sync = try await harness.manager.syncDown(
                target: try SyncDownTargetDescriptor(.soql(query: "SELECT Name FROM Account")),
                soupName: SyncHarness.soup, name: "accounts")
            // The reSync's window asks for the watermark's second again: the newest record
            // comes again, dated as stored, and the fold leaves it alone.
            #expect(try await harness.manager.reSync(name: "accounts").changedCount == 0)
            let id = SyncHarness.accountId(2)
            let history = try RecordHistory(journal: harness.store.journal, soup: SyncHarness.soup, id: id)
            let actions = history.events.map(\.action)
            #expect(
                actions == [
                    "fetched by sync \(sync.id)", "fetched again unchanged by sync \(sync.id), left as it was",
                ])
            #expect(history.events.last?.record == (try harness.recordsById()[id]))
            #expect(history.events.last?.record == history.events.first?.record)
        }
    }
}
