import Determinism
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import Soups
import SyncTesting
import Testing

/// The soup projection applies `sync.up.outcome` entries: server ids, clean flags, removals,
/// `__last_error__` — and keeps a change made while the request was in flight.
@Suite struct SyncUpOutcomeFoldTests {
    let directory: TemporaryDirectory
    let store: SyncStore

    init() throws {
        directory = try TemporaryDirectory("upload")
        let clock = ManualWallClock(WallTime(millisecondsSinceEpoch: 1_700_000_000_000), tick: .milliseconds(1))
        store = try SyncStore(
            directory: directory.appending("store"), clock: clock, idGenerator: IncrementingIDGenerator(),
            logger: .discarding)
        try store.soups.registerSoup(
            "accounts", indexSpecs: [IndexSpec(path: "Id", type: .string), IndexSpec(path: "__local__", type: .string)])
    }

    private func upload(_ records: [JSONValue], mergeMode: MergeMode = .overwrite) -> SyncUpUpload {
        SyncUpUpload(
            syncId: 7, soupName: "accounts", requestId: "7-1", idFieldName: "Id", mergeMode: mergeMode,
            items: records.map { SyncUpUpload.Item(record: $0, idFieldName: "Id", externalId: nil) })
    }

    private func record(_ entryId: Int64) throws -> JSONValue? {
        try store.soups.retrieve("accounts", ids: [entryId]).first
    }

    private static func entryId(_ record: JSONValue) throws -> Int64 {
        try #require(record["_soupEntryId"]?.number?.int64Value)
    }

    @Test func outcomesReplaceLocalIdsCleanAndRemoveInTheSameEntry() throws {
        defer { directory.remove() }
        let created = try store.soups.createLocally("accounts", ["Name": "New"])
        let server = try store.soups.create("accounts", ["Id": "001A", "Name": "Old", "__local__": false])
        let updated = try store.soups.updateLocally(
            "accounts", entryId: Self.entryId(server), changes: ["Name": "Older"])
        let doomed = try store.soups.deleteLocally(
            "accounts", entryId: Self.entryId(try store.soups.create("accounts", ["Id": "001B", "Name": "Doomed"])))
        let upload = upload([created, updated, doomed])
        try store.journal.append(upload.intentDraft)
        #expect(try store.soups.dirtyRecords("accounts").count == 3)  // an intent changes nothing

        try store.journal.append(upload.outcomeDraft([.created(serverId: "001C"), .updated, .deleted]))

        let createdNow = try #require(try record(Self.entryId(created)))
        #expect(createdNow["Id"] == "001C")
        #expect(createdNow["__local__"] == false)
        #expect(createdNow["__locally_created__"] == false)
        #expect(try record(Self.entryId(updated))?["__local__"] == false)
        #expect(try record(Self.entryId(doomed)) == nil)
        #expect(try store.soups.dirtyRecords("accounts").isEmpty)
        #expect(try store.soups.lookupSoupEntryId("accounts", path: "Id", value: "001C") == Self.entryId(created))
        #expect(try store.journal.verify().isConsistent)
    }

    @Test func aChangeMadeWhileTheRequestWasInFlightIsKeptAndTheCreateBecomesAnUpdate() throws {
        defer { directory.remove() }
        let created = try store.soups.createLocally("accounts", ["Name": "New"])
        let server = try store.soups.create("accounts", ["Id": "001A", "Name": "Old"])
        let updated = try store.soups.updateLocally("accounts", entryId: Self.entryId(server), changes: ["Name": "V1"])
        let upload = upload([created, updated])
        try store.journal.append(upload.intentDraft)
        // The user edits both records while the request is in flight.
        _ = try store.soups.updateLocally("accounts", entryId: Self.entryId(created), changes: ["Name": "New 2"])
        _ = try store.soups.updateLocally("accounts", entryId: Self.entryId(updated), changes: ["Name": "V2"])

        try store.journal.append(upload.outcomeDraft([.created(serverId: "001C"), .updated]))

        let createdNow = try #require(try record(Self.entryId(created)))
        #expect(createdNow["Id"] == "001C")  // never created twice: the next sync up updates it
        #expect(createdNow["Name"] == "New 2")
        #expect(createdNow["__local__"] == true)
        #expect(createdNow["__locally_created__"] == false)
        #expect(createdNow["__locally_updated__"] == true)
        let updatedNow = try #require(try record(Self.entryId(updated)))
        #expect(updatedNow["Name"] == "V2")
        #expect(updatedNow["__local__"] == true)
        #expect(try store.journal.verify().isConsistent)
    }

    /// An adopted record (decision 0323) takes the server's values over its stale ones and
    /// absorbs a clean copy of the server record; changed while the request was out, it keeps
    /// its change and becomes an update instead.
    @Test func anAdoptedRecordTakesTheServersValuesUnlessItChangedMeanwhile() throws {
        defer { directory.remove() }
        let stale = try store.soups.create(
            "accounts", ["Id": "001OLD", "Name": "Stale", "Phone": "1", "__local__": false])
        let copy = try store.soups.create(
            "accounts", ["Id": "001NEW", "Name": "Fetched", "Phone": "2", "__local__": false, "__sync_id__": 3])
        let edited = try store.soups.create("accounts", ["Id": "001GONE", "Name": "Mine", "__local__": false])
        let upload = upload([stale, edited])
        try store.journal.append(upload.intentDraft)
        _ = try store.soups.updateLocally("accounts", entryId: Self.entryId(edited), changes: ["Name": "Mine 2"])

        try store.journal.append(
            upload.outcomeDraft([
                .adopted(serverId: "001NEW", serverFields: ["Id": "001NEW", "Name": "Newest"]),
                .adopted(serverId: "001OTHER", serverFields: ["Id": "001OTHER", "Name": "Theirs"]),
            ]))

        let adopted = try #require(try record(Self.entryId(stale)))
        #expect(adopted["Id"] == "001NEW")
        #expect(adopted["Name"] == "Newest", "the server's value, read last")
        #expect(adopted["Phone"] == "2", "the fetched copy's value of a field the server was not asked for")
        #expect(adopted["__sync_id__"] == 3)
        #expect(adopted["__local__"] == false)
        #expect(try record(Self.entryId(copy)) == nil)
        let kept = try #require(try record(Self.entryId(edited)))
        #expect(kept["Id"] == "001OTHER")
        #expect(kept["Name"] == "Mine 2")
        #expect(kept["__locally_updated__"] == true)
        #expect(try store.journal.verify().isConsistent)
    }

    @Test func failuresKeepTheChangeWithTheServersErrorAndNotFoundFollowsTheMergeMode() throws {
        defer { directory.remove() }
        let first = try store.soups.updateLocally(
            "accounts", entryId: Self.entryId(try store.soups.create("accounts", ["Id": "001A", "Name": "A"])),
            changes: ["Name": "A2"])
        let second = try store.soups.updateLocally(
            "accounts", entryId: Self.entryId(try store.soups.create("accounts", ["Id": "001B", "Name": "B"])),
            changes: ["Name": "B2"])
        let error: JSONValue = ["errorCode": "STRING_TOO_LONG", "message": "too long", "fields": ["Name"]]
        try store.journal.append(upload([first, second]).outcomeDraft([.failed(error: error), .notFound]))
        let failed = try #require(try record(Self.entryId(first)))
        #expect(failed["__local__"] == true)
        #expect(failed["__last_error__"]?.string?.contains("STRING_TOO_LONG") == true)
        let missing = try #require(try record(Self.entryId(second)))
        #expect(missing["__locally_created__"] == true)  // OVERWRITE creates it again

        let third = try store.soups.updateLocally(
            "accounts", entryId: Self.entryId(try store.soups.create("accounts", ["Id": "001D", "Name": "D"])),
            changes: ["Name": "D2"])
        try store.journal.append(upload([third], mergeMode: .leaveIfChanged).outcomeDraft([.notFound]))
        #expect(try record(Self.entryId(third)) == third)  // LEAVE_IF_CHANGED leaves it alone
        #expect(try store.journal.verify().isConsistent)
    }

    @Test func anOutcomeWithoutItsHeadersIsATypedErrorAndChangesNothing() throws {
        defer { directory.remove() }
        let before = try store.journal.lastSequence()
        #expect(throws: SoupError.self) {
            try store.journal.append(
                JournalEntry.Draft(kind: .syncUpOutcome, header: ["soup": .string("accounts")], json: ["outcomes": []]))
        }
        #expect(try store.journal.lastSequence() == before)
    }
}
