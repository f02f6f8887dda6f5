import Determinism
import EventJournal
import LosslessJSON
import MobileSync
import Soups
import Testing

@Suite struct SyncJournalEntryTests {
    /// The entry the journal would store for `draft` at `sequence`.
    static func entry(_ draft: JournalEntry.Draft, sequence: UInt64 = 12) -> JournalEntry {
        JournalEntry(
            sequence: sequence, kind: draft.kind, timestamp: draft.timestamp ?? WallTime(millisecondsSinceEpoch: 5),
            header: draft.header, payload: draft.payload, payloadFormat: draft.payloadFormat)
    }

    static func page() -> SyncDownPage {
        let records = #"[{"Id":"001","Amount":12.50,"LastModifiedDate":"2024-05-01T12:30:00.000+0000"}]"#
        return SyncDownPage(
            syncId: 7, soupName: "accounts", pageNumber: 2, records: Array(records.utf8), totalSize: 1200,
            maxTimeStamp: 1_714_566_600_000, advancesWatermark: true, idFieldName: "Id", mergeMode: .leaveIfChanged)
    }

    @Test func pageEntryKeepsTheServerBytesExactly() throws {
        let page = Self.page()
        let draft = page.journalDraft
        #expect(draft.kind == .syncDownPageFetched)
        #expect(draft.kind.rawValue == "sync.down.page")
        #expect(draft.payload == page.records)
        #expect(draft.payloadFormat == .json)
        #expect(draft.header["syncId"] == .integer(7))
        #expect(draft.header["soup"] == .string("accounts"))
        #expect(draft.header["page"] == .integer(2))
        #expect(draft.header["totalSize"] == .integer(1200))
        #expect(draft.header["maxTimeStamp"] == .integer(1_714_566_600_000))
        #expect(draft.header["advancesWatermark"] == .bool(true))
        #expect(draft.header["idFieldName"] == .string("Id"))
        #expect(draft.header["mergeMode"] == .string("LEAVE_IF_CHANGED"))
        #expect(try SyncDownPage(journalEntry: Self.entry(draft)) == page)
        #expect(try page.parsedRecords().first?["Amount"]?.number?.text == "12.50")
    }

    @Test func pageTimeStampAgreesWithItsRecords() throws {
        let page = Self.page()
        let computed = SyncDownPage.latestModificationTimeStamp(
            of: try page.parsedRecords(), fieldName: "LastModifiedDate")
        #expect(computed == page.maxTimeStamp)
    }

    @Test(arguments: [
        "syncId", "soup", "page", "totalSize", "maxTimeStamp", "advancesWatermark", "idFieldName", "mergeMode",
    ])
    func pageEntryWithoutAHeaderFieldIsRejected(field: String) {
        var draft = Self.page().journalDraft
        draft.header[field] = nil
        #expect {
            try SyncDownPage(journalEntry: Self.entry(draft))
        } throws: { error in
            guard let error = error as? SyncError else { return false }
            return error.code == .malformedEntry && error.message.contains("\"\(field)\"")
        }
    }

    @Test func pageRecordsThatAreNotAnArrayAreRejectedWhenParsed() {
        var page = Self.page()
        page.records = Array(#"{"records":[]}"#.utf8)
        #expect { try page.parsedRecords() } throws: { ($0 as? SyncError)?.code == .malformedJSON }
        page.records = Array("[".utf8)
        #expect { try page.parsedRecords() } throws: { ($0 as? SyncError)?.code == .malformedJSON }
    }

    @Test func stateEntriesRoundTrip() throws {
        var state = try SyncStateTests.soqlState()
        let created = state.createdEntryDraft
        #expect(created.kind.rawValue == "sync.created")
        #expect(created.header["syncId"] == .integer(7))
        #expect(created.header["syncName"] == .string("accounts"))
        #expect(created.header["status"] == .string("NEW"))
        #expect(try SyncState(journalEntry: Self.entry(created)) == state)
        state.start(at: 100)
        let changed = state.changedEntryDraft
        #expect(changed.kind.rawValue == "sync.state.changed")
        #expect(changed.header["status"] == .string("RUNNING"))
        #expect(try SyncState(journalEntry: Self.entry(changed)) == state)
    }

    @Test func stateEntryOfAnotherKindOrWithAMismatchedIdIsRejected() throws {
        let state = try SyncStateTests.soqlState()
        #expect {
            try SyncState(journalEntry: Self.entry(Self.page().journalDraft))
        } throws: { ($0 as? SyncError)?.code == .malformedEntry }
        var draft = state.changedEntryDraft
        draft.header["syncId"] = .integer(8)
        #expect {
            try SyncState(journalEntry: Self.entry(draft))
        } throws: { ($0 as? SyncError)?.code == .malformedEntry }
        draft = state.changedEntryDraft
        draft.payload = Array("not json".utf8)
        #expect {
            try SyncState(journalEntry: Self.entry(draft))
        } throws: { ($0 as? SyncError)?.code == .malformedEntry }
    }
}
