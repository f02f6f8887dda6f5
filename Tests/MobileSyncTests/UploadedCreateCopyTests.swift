import Determinism
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import Soups
import SyncTesting
import Testing

/// A create can reach the server while its outcome is lost (the answer was dropped, the app
/// died). A sync down in between fetches the server copy; the soup must still hold the record
/// once, with the app's values (decision 0353). Found by the seeded simulation, seed 17.
@Suite struct UploadedCreateCopyTests {
    let directory: TemporaryDirectory
    let store: SyncStore

    init() throws {
        directory = try TemporaryDirectory("copies")
        let clock = ManualWallClock(WallTime(millisecondsSinceEpoch: 1_700_000_000_000), tick: .milliseconds(1))
        store = try SyncStore(
            directory: directory.appending("store"), clock: clock, idGenerator: IncrementingIDGenerator(),
            logger: .discarding)
        try store.soups.registerSoup("accounts", indexSpecs: [IndexSpec(path: "Id", type: .string)])
    }

    private func createUpload(_ record: JSONValue, externalIdFieldName: String?) throws -> SyncUpUpload {
        let externalId = externalIdFieldName.flatMap { record[$0]?.string }
        return SyncUpUpload(
            syncId: 2, soupName: "accounts", requestId: "2-1", idFieldName: "Id", mergeMode: .overwrite,
            items: [SyncUpUpload.Item(record: record, idFieldName: "Id", externalId: externalId)],
            externalIdFieldName: externalIdFieldName)
    }

    private func fetch(_ records: [JSONValue], mergeMode: MergeMode) throws {
        let page = SyncDownPage(
            syncId: 1, soupName: "accounts", pageNumber: 0, records: JSONValue.array(records).serialized(),
            totalSize: Int64(records.count), maxTimeStamp: -1, advancesWatermark: false, mergeMode: mergeMode)
        try store.journal.append(page.journalDraft)
    }

    private func records(withId id: String) throws -> [JSONValue] {
        try store.soups.query(.exact("accounts", path: "Id", value: .string(id), orderPath: "_soupEntryId"))
    }

    private static func entryId(_ record: JSONValue) throws -> Int64 {
        try #require(record["_soupEntryId"]?.number?.int64Value)
    }

    @Test(arguments: [MergeMode.leaveIfChanged, .overwrite])
    func aFetchedCopyOfACreateInFlightIsMatchedToTheLocalRecord(mergeMode: MergeMode) throws {
        defer { directory.remove() }
        let created = try store.soups.createLocally("accounts", ["Name": "Local", "Ext__c": "LOC-1"])
        let upload = try createUpload(created, externalIdFieldName: "Ext__c")
        try store.journal.append(upload.intentDraft)

        try fetch([["Id": "001X", "Name": "Local", "Ext__c": "LOC-1", "Other": [1, 2]]], mergeMode: mergeMode)
        // Matched when the page is folded, before any outcome (kept or overwritten, never a
        // second record): the fold reads the external id field although no index names it.
        #expect(try store.soups.count(.all("accounts")) == 1)
        try store.journal.append(upload.outcomeDraft([.created(serverId: "001X")]))

        let copies = try records(withId: "001X")
        #expect(copies.count == 1)
        #expect(try copies.first.map(Self.entryId) == Self.entryId(created))
        #expect(copies.first?["Name"] == "Local")
        #expect(try store.soups.dirtyRecords("accounts").isEmpty)
        #expect(try store.soups.count(.all("accounts")) == 1)
        #expect(try store.journal.verify().isConsistent)
    }

    /// A rebuild parses pages ahead of the fold, knowing no create is uploading when its
    /// transaction starts; the fold must notice that one started, and parse the page again for
    /// the external id field its copy is matched by.
    @Test func aRebuildMatchesACopyOfACreateThatStartedUploadingWhileItsPageWasParsedAhead() throws {
        defer { directory.remove() }
        for number in 0..<70 { try store.soups.create("accounts", ["Id": .string("001A\(number)")]) }
        let created = try store.soups.createLocally("accounts", ["Name": "Local", "Ext__c": "LOC-1"])
        let upload = try createUpload(created, externalIdFieldName: "Ext__c")
        try store.journal.append(upload.intentDraft)
        try fetch([["Id": "001X", "Name": "Local", "Ext__c": "LOC-1", "Other": [1, 2]]], mergeMode: .overwrite)
        #expect(try store.soups.count(.all("accounts")) == 71)

        try store.journal.rebuild()
        #expect(try store.soups.count(.all("accounts")) == 71)
        #expect(try records(withId: "001X").map(Self.entryId) == [Self.entryId(created)])
    }

    @Test func anEditMadeBeforeTheCopyArrivesIsKeptUnderLeaveIfChanged() throws {
        defer { directory.remove() }
        let created = try store.soups.createLocally("accounts", ["Name": "Local", "Ext__c": "LOC-1"])
        let upload = try createUpload(created, externalIdFieldName: "Ext__c")
        try store.journal.append(upload.intentDraft)
        _ = try store.soups.updateLocally("accounts", entryId: Self.entryId(created), changes: ["Name": "Edited"])

        try fetch([["Id": "001X", "Name": "Local", "Ext__c": "LOC-1"]], mergeMode: .leaveIfChanged)
        try store.journal.append(upload.outcomeDraft([.created(serverId: "001X")]))

        let copies = try records(withId: "001X")
        #expect(copies.count == 1)
        #expect(copies.first?["Name"] == "Edited")
        #expect(copies.first?["__locally_updated__"] == true)  // the next sync up sends the edit
        #expect(try store.journal.verify().isConsistent)
    }

    @Test func aCleanCopyStoredBeforeTheOutcomeIsAbsorbedByTheCreate() throws {
        defer { directory.remove() }
        let created = try store.soups.createLocally("accounts", ["Name": "Local"])
        let upload = try createUpload(created, externalIdFieldName: nil)
        try store.journal.append(upload.intentDraft)
        try fetch([["Id": "001X", "Name": "Local"]], mergeMode: .leaveIfChanged)
        #expect(try records(withId: "001X").count == 1)  // without an external id the copy is new

        try store.journal.append(upload.outcomeDraft([.created(serverId: "001X")]))

        let copies = try records(withId: "001X")
        #expect(copies.count == 1)
        #expect(try copies.first.map(Self.entryId) == Self.entryId(created))
        #expect(copies.first?["__sync_id__"] == 1)  // so ghost cleaning of sync 1 still covers it
        #expect(try store.journal.verify().isConsistent)
    }

    @Test func aCopyWithLocalChangesIsNeverDropped() throws {
        defer { directory.remove() }
        let created = try store.soups.createLocally("accounts", ["Name": "Local"])
        let upload = try createUpload(created, externalIdFieldName: nil)
        try store.journal.append(upload.intentDraft)
        try fetch([["Id": "001X", "Name": "Local"]], mergeMode: .leaveIfChanged)
        let copy = try #require(try records(withId: "001X").first)
        _ = try store.soups.updateLocally("accounts", entryId: Self.entryId(copy), changes: ["Name": "Copy edit"])

        try store.journal.append(upload.outcomeDraft([.created(serverId: "001X")]))

        #expect(try records(withId: "001X").map { $0["Name"] } == ["Local", "Copy edit"])
        #expect(try store.journal.verify().isConsistent)
    }
}
