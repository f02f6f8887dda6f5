import Determinism
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import Soups
import SyncTesting
import Testing

/// `RecordHistory` (what `journal-replay blame` prints) follows one record through the journal.
@Suite struct RecordHistoryTests {
    @Test func followsARecordByIdAndEntryIdThroughLocalChangesAndDeletion() throws {
        let directory = try TemporaryDirectory("history")
        defer { directory.remove() }
        let clock = ManualWallClock(WallTime(millisecondsSinceEpoch: 1_700_000_000_000), tick: .milliseconds(1))
        let store = try SyncStore(
            directory: directory.appending("store"), clock: clock, idGenerator: IncrementingIDGenerator(),
            logger: .discarding)
        try store.soups.registerSoup("accounts", indexSpecs: [IndexSpec(path: "Id", type: .string)])
        let acme = try store.soups.createLocally("accounts", ["Name": "Acme"])
        let other = try store.soups.createLocally("accounts", ["Name": "Other"])
        let entryId = try #require(acme["_soupEntryId"]?.number?.int64Value)
        let otherId = try #require(other["_soupEntryId"]?.number?.int64Value)
        _ = try store.soups.updateLocally("accounts", entryId: entryId, changes: ["Name": "Acme Corp"])
        _ = try store.soups.updateLocally("accounts", entryId: otherId, changes: ["Name": "Other Corp"])
        _ = try store.soups.deleteLocally("accounts", entryId: entryId)
        try store.soups.delete("accounts", ids: [entryId])

        let localId = try #require(acme["Id"]?.string)
        for id in [localId, String(entryId)] {
            let history = try RecordHistory(journal: store.journal, soup: "accounts", id: id)
            #expect(
                history.events.map(\.action) == ["created locally", "updated locally", "deleted locally", "removed"])
            #expect(history.events.first?.record?["Name"] == "Acme")
            #expect(history.events.map(\.sequence) == history.events.map(\.sequence).sorted())
        }
    }

    @Test func aRecordNoEntryTouchedHasNoEvents() throws {
        let directory = try TemporaryDirectory("history")
        defer { directory.remove() }
        let store = try SyncStore(
            directory: directory.appending("store"), clock: ManualWallClock(tick: .milliseconds(1)), logger: .discarding
        )
        try store.soups.registerSoup("accounts", indexSpecs: [IndexSpec(path: "Id", type: .string)])
        _ = try store.soups.create("accounts", ["Id": "001A", "Name": "Acme"])
        #expect(try RecordHistory(journal: store.journal, soup: "accounts", id: "001B").events.isEmpty)
        #expect(try RecordHistory(journal: store.journal, soup: "contacts", id: "001A").events.isEmpty)
        let found = try RecordHistory(journal: store.journal, soup: "accounts", id: "001A")
        #expect(found.events.map(\.action) == ["created"])
    }
}

extension RecordHistoryTests {
    @Test func followsALocalRecordThroughItsUploadToItsServerId() throws {
        let directory = try TemporaryDirectory("history")
        defer { directory.remove() }
        let store = try SyncStore(
            directory: directory.appending("store"), clock: ManualWallClock(tick: .milliseconds(1)),
            idGenerator: IncrementingIDGenerator(), logger: .discarding)
        try store.soups.registerSoup("accounts", indexSpecs: [IndexSpec(path: "Id", type: .string)])
        let created = try store.soups.createLocally("accounts", ["Name": "Acme"])
        let upload = SyncUpUpload(
            syncId: 3, soupName: "accounts", requestId: "3-1", idFieldName: "Id", mergeMode: .overwrite,
            items: [SyncUpUpload.Item(record: created, idFieldName: "Id", externalId: nil)])
        try store.journal.append(upload.intentDraft)
        try store.journal.append(upload.outcomeDraft([.created(serverId: "001SERVER")]))
        let entryId = try #require(created["_soupEntryId"]?.number?.int64Value)
        // A later page of a LEAVE_IF_CHANGED sync overwrites the now clean record.
        let page = SyncDownPage(
            syncId: 1, soupName: "accounts", pageNumber: 0, records: Array(#"[{"Id":"001SERVER","Name":"Acme"}]"#.utf8),
            totalSize: 1, maxTimeStamp: -1, advancesWatermark: false, idFieldName: "Id", mergeMode: .leaveIfChanged)
        try store.journal.append(page.journalDraft)
        _ = try store.soups.updateLocally("accounts", entryId: entryId, changes: ["Name": "Acme 2"])

        let history = try RecordHistory(journal: store.journal, soup: "accounts", id: "001SERVER")
        #expect(
            history.events.map(\.action) == [
                "created locally", "created on the server as 001SERVER by sync 3", "fetched by sync 1",
                "updated locally",
            ])
    }
}
