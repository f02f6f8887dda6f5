import EventJournal
import LosslessJSON
import MobileSync
import Soups
import SyncTesting
import Testing

/// The soup fold of a page that fetches again a record the soup already holds with the same
/// modification date: left alone when only the reSync's window brought it (decision 0325),
/// Mobile SDK's merge rules otherwise.
@Suite struct FetchedAgainFoldTests {
    static let soup = ServerPageFoldTests.soup
    static let second = "2024-05-01T12:30:00.000+0000"
    static let laterSecond = "2024-05-01T12:30:01.000+0000"
    /// A reSync whose watermark is ``second``: records dated at or before it came only because
    /// of the window.
    static let reSync = ReSyncWindow(maxTimeStamp: 1_714_566_600_000)

    /// Appends a page of `records` the way the engine does, and returns how many records the
    /// fold left alone (the page's records less those the sync-state fold counted as changed).
    @discardableResult
    static func append(
        _ records: [JSONValue], to store: SyncStore, syncId: Int64 = 1, mode: MergeMode,
        dateField: String? = "LastModifiedDate", window: ReSyncWindow? = reSync
    ) throws -> Int {
        let serialized = SerializedPage(records: records)
        let page = SyncDownPage(
            syncId: syncId, soupName: soup, pageNumber: 0, records: serialized.bytes, totalSize: Int64(records.count),
            maxTimeStamp: SyncDownPage.latestModificationTimeStamp(of: records, fieldName: "LastModifiedDate"),
            advancesWatermark: true, idFieldName: "Id", mergeMode: mode, modificationDateFieldName: dateField,
            reSyncWindow: window, recordCount: Int64(records.count))
        if try store.syncState(id: syncId) == nil {
            let target = SyncState.Target.syncDown(
                try SyncDownTargetDescriptor(.soql(query: "SELECT Name FROM Account")))
            let state = SyncState(id: syncId, target: target, options: SyncOptions(mergeMode: mode), soupName: soup)
            try store.journal.append(state.createdEntryDraft)
        }
        let before = try #require(try store.syncState(id: syncId)).changedCount
        try store.soups.appendFetchedPages([FetchedPage(draft: page.journalDraft, page: serialized, records: records)])
        let after = try #require(try store.syncState(id: syncId)).changedCount
        return records.count - Int(after - before)
    }

    static func record(_ store: SyncStore, _ id: String) throws -> JSONValue {
        try #require(try ServerPageFoldTests.all(store).first { $0["Id"]?.string == id })
    }

    static func entryId(_ record: JSONValue) throws -> Int64 {
        try #require(record["_soupEntryId"]?.number?.int64Value)
    }

    @Test(arguments: [MergeMode.overwrite, .leaveIfChanged])
    func aDirtyRecordFetchedAgainWithItsDateKeepsItsEditUnderEitherMode(mode: MergeMode) throws {
        try ServerPageFoldTests.withStore(indexed: true) { store in
            let server: JSONValue = ["Id": "001A", "Name": "Server", "LastModifiedDate": .string(Self.second)]
            try Self.append([server], to: store, mode: mode)
            let entryId = try Self.entryId(try Self.record(store, "001A"))
            try store.soups.updateLocally(Self.soup, entryId: entryId, changes: ["Name": "Mine"])
            // Another spelling of the same instant: dates compare as instants (decision 0303).
            let again: JSONValue = ["Id": "001A", "Name": "Server", "LastModifiedDate": "2024-05-01T12:30:00Z"]
            let unchanged = try Self.append(
                [again, ["Id": "001B", "LastModifiedDate": .string(Self.second)]], to: store, mode: mode)
            #expect(unchanged == 1)
            let kept = try Self.record(store, "001A")
            #expect(kept["Name"] == "Mine")
            #expect(kept["__local__"] == true)
            #expect(try store.soups.dirtyRecords(Self.soup).count == 1)
            #expect(try ServerPageFoldTests.all(store).count == 2)
        }
    }

    @Test func aDirtyRecordWhoseServerCopyChangedIsOverwrittenUnderOverwrite() throws {
        try ServerPageFoldTests.withStore(indexed: true) { store in
            try Self.append(
                [["Id": "001A", "Name": "Server", "LastModifiedDate": .string(Self.second)]], to: store,
                mode: .overwrite)
            let entryId = try Self.entryId(try Self.record(store, "001A"))
            try store.soups.updateLocally(Self.soup, entryId: entryId, changes: ["Name": "Mine"])
            let unchanged = try Self.append(
                [["Id": "001A", "Name": "Theirs", "LastModifiedDate": .string(Self.laterSecond)]], to: store,
                mode: .overwrite)
            #expect(unchanged == 0)
            #expect(try Self.record(store, "001A")["Name"] == "Theirs")
            #expect(try store.soups.dirtyRecords(Self.soup).isEmpty)
        }
    }

    /// Leaving it alone keeps its bookkeeping time: the record is not written at all.
    @Test func aCleanRecordFetchedAgainIdenticalIsNotWrittenAgain() throws {
        try ServerPageFoldTests.withStore(indexed: true) { store in
            try Self.append(
                [["Id": "001A", "Name": "Server", "LastModifiedDate": .string(Self.second)]], to: store,
                mode: .overwrite)
            let before = try Self.record(store, "001A")
            let unchanged = try Self.append(
                [["Id": "001A", "Name": "Server", "LastModifiedDate": .string(Self.second)]], to: store,
                mode: .overwrite)
            #expect(unchanged == 1)
            #expect(try Self.record(store, "001A") == before)
        }
    }

    /// Dates are whole seconds: a second edit within the same second keeps the date and changes
    /// the fields, and must arrive.
    @Test(arguments: [MergeMode.overwrite, .leaveIfChanged])
    func aCleanRecordEditedAgainInTheSameSecondIsApplied(mode: MergeMode) throws {
        try ServerPageFoldTests.withStore(indexed: true) { store in
            try Self.append(
                [["Id": "001A", "Name": "First", "LastModifiedDate": .string(Self.second)]], to: store, mode: mode)
            let unchanged = try Self.append(
                [["Id": "001A", "Name": "Second", "LastModifiedDate": "2024-05-01T12:30:00Z"]], to: store, mode: mode)
            #expect(unchanged == 0)
            #expect(try Self.record(store, "001A")["Name"] == "Second")
        }
    }

    /// Two syncs into one soup: a reSync's window does not take the other sync's records.
    @Test func aRecordAnotherSyncStoredKeepsItsOwnerWhenOnlyTheWindowBringsIt() throws {
        try ServerPageFoldTests.withStore(indexed: true) { store in
            let server: JSONValue = ["Id": "001A", "Name": "Server", "LastModifiedDate": .string(Self.second)]
            try Self.append([server], to: store, syncId: 1, mode: .overwrite, window: nil)
            let before = try Self.record(store, "001A")
            #expect(try Self.append([server], to: store, syncId: 2, mode: .overwrite) == 1)
            #expect(try Self.record(store, "001A") == before, "not written, owner kept")
        }
    }

    /// The sync that writes a record owns it, as in Mobile SDK: a full sync takes it over.
    @Test func aFullSyncTakesOverTheRecordsItFetches() throws {
        try ServerPageFoldTests.withStore(indexed: true) { store in
            let server: JSONValue = ["Id": "001A", "Name": "Server", "LastModifiedDate": .string(Self.second)]
            try Self.append([server], to: store, syncId: 1, mode: .overwrite, window: nil)
            #expect(try Self.append([server], to: store, syncId: 2, mode: .overwrite, window: nil) == 0)
            #expect(try Self.record(store, "001A")["__sync_id__"] == 2)
        }
    }

    /// Mobile SDK's `testSyncDownWithoutOverwrite` then OVERWRITE: a full sync under OVERWRITE
    /// overwrites a dirty record even when the server's date did not move.
    @Test func aFullSyncUnderOverwriteOverwritesADirtyRecordWithItsDate() throws {
        try ServerPageFoldTests.withStore(indexed: true) { store in
            let server: JSONValue = ["Id": "001A", "Name": "Server", "LastModifiedDate": .string(Self.second)]
            try Self.append([server], to: store, mode: .leaveIfChanged, window: nil)
            let entryId = try Self.entryId(try Self.record(store, "001A"))
            try store.soups.updateLocally(Self.soup, entryId: entryId, changes: ["Name": "Mine"])
            #expect(try Self.append([server], to: store, mode: .leaveIfChanged, window: nil) == 0)
            #expect(try Self.record(store, "001A")["Name"] == "Mine", "LEAVE_IF_CHANGED keeps the edit")
            #expect(try Self.append([server], to: store, syncId: 2, mode: .overwrite, window: nil) == 0)
            let overwritten = try Self.record(store, "001A")
            #expect(overwritten["Name"] == "Server")
            #expect(overwritten["__local__"] == false)
            #expect(try store.soups.dirtyRecords(Self.soup).isEmpty)
        }
    }

    /// A record dated after the previous watermark is a change Mobile SDK's query would bring:
    /// OVERWRITE overwrites a dirty copy even when the soup already has that date.
    @Test func aRecordDatedAfterThePreviousWatermarkFollowsTheMergeMode() throws {
        try ServerPageFoldTests.withStore(indexed: true) { store in
            let server: JSONValue = ["Id": "001A", "Name": "Server", "LastModifiedDate": .string(Self.laterSecond)]
            try Self.append([server], to: store, mode: .overwrite, window: nil)
            let entryId = try Self.entryId(try Self.record(store, "001A"))
            try store.soups.updateLocally(Self.soup, entryId: entryId, changes: ["Name": "Mine"])
            #expect(try Self.append([server], to: store, mode: .overwrite) == 0)
            #expect(try Self.record(store, "001A")["Name"] == "Server")
        }
    }

    /// Pages journaled under decision 0321 (no `previousWatermark`) fold as they did: any date,
    /// a dirty record kept under OVERWRITE too, so a rebuild never loses an edit it kept.
    @Test func aPageOfDecision0321FoldsAsItDid() throws {
        try ServerPageFoldTests.withStore(indexed: true) { store in
            let server: JSONValue = ["Id": "001A", "Name": "Server", "LastModifiedDate": .string(Self.laterSecond)]
            try Self.append([server], to: store, mode: .overwrite, window: nil)
            let entryId = try Self.entryId(try Self.record(store, "001A"))
            try store.soups.updateLocally(Self.soup, entryId: entryId, changes: ["Name": "Mine"])
            let serialized = SerializedPage(records: [server])
            let page = SyncDownPage(
                syncId: 1, soupName: Self.soup, pageNumber: 0, records: serialized.bytes, totalSize: 1,
                maxTimeStamp: -1, advancesWatermark: true, idFieldName: "Id", mergeMode: .overwrite,
                modificationDateFieldName: "LastModifiedDate")
            var draft = page.journalDraft
            draft.header["previousWatermark"] = nil
            try store.soups.appendFetchedPages([FetchedPage(draft: draft, page: serialized, records: [server])])
            #expect(try Self.record(store, "001A")["Name"] == "Mine")
        }
    }

    /// Dates missing or unreadable on either side are never the same date.
    @Test(arguments: [JSONValue.null, "yesterday"])
    func aRecordWithoutAReadableDateIsAlwaysApplied(date: JSONValue) throws {
        try ServerPageFoldTests.withStore(indexed: true) { store in
            let server: JSONValue = ["Id": "001A", "Name": "Server", "LastModifiedDate": date]
            try Self.append([server], to: store, mode: .overwrite)
            let entryId = try Self.entryId(try Self.record(store, "001A"))
            try store.soups.updateLocally(Self.soup, entryId: entryId, changes: ["Name": "Mine"])
            #expect(try Self.append([server], to: store, mode: .overwrite) == 0)
            #expect(try Self.record(store, "001A")["Name"] == "Server")
        }
    }

    /// Entries journaled before the rule name no date field; they fold as they were recorded.
    @Test func aPageWithoutADateFieldFoldsAsBefore() throws {
        try ServerPageFoldTests.withStore(indexed: false) { store in
            let server: JSONValue = ["Id": "001A", "Name": "Server", "LastModifiedDate": .string(Self.second)]
            try Self.append([server], to: store, mode: .overwrite, dateField: nil)
            let entryId = try Self.entryId(try Self.record(store, "001A"))
            try store.soups.updateLocally(Self.soup, entryId: entryId, changes: ["Name": "Mine"])
            #expect(try Self.append([server], to: store, mode: .overwrite, dateField: nil) == 0)
            #expect(try Self.record(store, "001A")["Name"] == "Server")
        }
    }

    /// The page header carries the date field and the window, so `journal-replay log` shows
    /// them and a reader gets them back.
    @Test func thePageEntryRecordsTheDateFieldAndTheWindow() throws {
        try ServerPageFoldTests.withStore(indexed: true) { store in
            try Self.append([["Id": "001A", "LastModifiedDate": .string(Self.second)]], to: store, mode: .overwrite)
            let entry = try #require(
                try store.journal.read { reader in try reader.entry(at: try reader.lastSequence) })
            #expect(entry.header["modificationDateFieldName"] == .string("LastModifiedDate"))
            #expect(entry.header["modifiedSince"] == .integer(1_714_566_600_000))
            #expect(entry.header["reSyncOverlapSeconds"] == .integer(0))
            let page = try SyncDownPage(journalEntry: entry)
            #expect(page.modificationDateFieldName == "LastModifiedDate")
            #expect(entry.header["previousWatermark"] == .integer(1_714_566_600_000))
            #expect(entry.header["recordCount"] == .integer(1))
            #expect(page.recordCount == 1)
            #expect(
                page.reSyncWindow
                    == ReSyncWindow(
                        modifiedSince: 1_714_566_600_000, overlapSeconds: 0, previousWatermark: 1_714_566_600_000))
        }
    }
}
