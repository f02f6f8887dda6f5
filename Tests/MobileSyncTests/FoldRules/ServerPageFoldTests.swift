import Determinism
import EventJournal
import Foundation
import LMDBStore
import LosslessJSON
import MobileSync
import Soups
import SyncTesting
import Testing

/// The soup and sync-state projections fold `sync.down.page` and `sync.ghosts.cleaned`
/// entries appended directly, with and without an index on the id field.
@Suite struct ServerPageFoldTests {
    static let soup = "accounts"

    static func withStore(indexed: Bool, _ body: (SyncStore) throws -> Void) throws {
        let directory = try TemporaryDirectory("page-fold")
        defer { directory.remove() }
        let store = try SyncStore(
            directory: directory.appending("store"), clock: ManualWallClock(tick: .milliseconds(1)),
            idGenerator: IncrementingIDGenerator(), logger: .discarding)
        let specs = indexed ? [IndexSpec(path: "Id", type: .string)] : [IndexSpec(path: "Name", type: .string)]
        try store.soups.registerSoup(soup, indexSpecs: specs)
        try body(store)
        let report = try store.journal.verify()
        #expect(report.isConsistent, "verify: \(report.divergences)")
    }

    static func page(_ json: String, syncId: Int64 = 1, number: Int64 = 0, mode: MergeMode) -> SyncDownPage {
        SyncDownPage(
            syncId: syncId, soupName: soup, pageNumber: number, records: Array(json.utf8), totalSize: 2,
            maxTimeStamp: -1, advancesWatermark: false, idFieldName: "Id", mergeMode: mode)
    }

    static func all(_ store: SyncStore) throws -> [JSONValue] {
        try store.soups.query(QuerySpec.all(soup, orderPath: "_soupEntryId", pageSize: 100))
    }

    /// Every stored record, key and value, as the soups' records database holds them.
    static func storedRecords(_ store: SyncStore) throws -> [[UInt8]: [UInt8]] {
        let environment = store.journal.projectionEnvironment
        let records = try environment.database(named: "soups.records").unsealed
        var stored: [[UInt8]: [UInt8]] = [:]
        try environment.read { transaction in
            try transaction.withCursor(records) { cursor in
                try cursor.forEach { key, value in
                    stored[key] = value
                    return true
                }
            }
        }
        return stored
    }

    /// A page appended without the engine's hand-over is folded from its payload: a record
    /// whose bytes there are its serialization gets the added fields spliced in, any other is
    /// serialized again; both must store the same bytes for the same records.
    @Test func aPageStoresTheSameBytesHoweverItsPayloadSpellsTheRecords() throws {
        let spellings = [
            #"[{"Amount":12.50,"Id":"001A","Name":"Acme"},{"Id":"001B","Name":"B\u00e9"},{"Id":"001C"}]"#,
            #"[ {"Amount":12.50, "Id":"001A","Name":"Acme"},{"Id":"001B","Name":"Bé"} ,{"Id":"001C"}]"#,
            #"[{"Name":"Acme","Id":"001A","Amount":12.50},{"Name":"Bé","Id":"001B"},{"Id":"001C"}]"#,
            #"[{"Amount":12.50,"Id":"001A","Name":"Ac\u006de"},{"Id":"001B","Name":"Bé","Name":"Bé"},{"Id":"001C"}]"#,
            #"[{"Amount":12.50,"Id":"001A","Name":"Acme"},{"Id":"001B","Name":"Bé"},{"Id":"001C"}]"#,
        ]
        var stored: [[[UInt8]: [UInt8]]] = []
        for json in spellings {
            try Self.withStore(indexed: true) { store in
                try store.journal.append(Self.page(json, mode: .overwrite).journalDraft)
                stored.append(try Self.storedRecords(store))
            }
        }
        #expect(stored.first?.count == 3)
        for (position, records) in stored.enumerated() {
            #expect(records == stored.last, "spelling \(position): \(spellings[position])")
        }
    }

    @Test(arguments: [true, false])
    func overwriteKeepsTheEntryIdOfTheMatchingRecordAndCleansIt(indexed: Bool) throws {
        try Self.withStore(indexed: indexed) { store in
            let local = try store.soups.create(Self.soup, ["Id": "001A", "Name": "Old", "Mine": true])
            let entryId = try #require(local["_soupEntryId"]?.number?.int64Value)
            try store.soups.updateLocally(Self.soup, entryId: entryId, changes: ["Name": "Edited"])
            let json = #"[{"Id":"001A","Name":"Server","Amount":12.50},{"Id":"001B","Name":"New"}]"#
            try store.journal.append(Self.page(json, mode: .overwrite).journalDraft)
            let records = try Self.all(store)
            #expect(records.count == 2)
            #expect(records[0]["_soupEntryId"]?.number?.int64Value == entryId)
            #expect(records[0]["Name"] == "Server")
            #expect(records[0]["Mine"] == nil, "the server's JSON replaces the record whole")
            #expect(records[0]["Amount"]?.number?.text == "12.50")
            #expect(records[0]["__local__"] == false)
            #expect(records[0]["__last_error__"] == .null)
            #expect(records[0]["__sync_id__"]?.number?.int64Value == 1)
            #expect(records[1]["_soupEntryId"]?.number?.int64Value == entryId + 1)
            #expect(try store.soups.dirtyRecords(Self.soup).isEmpty)
        }
    }

    @Test(arguments: [true, false])
    func leaveIfChangedSkipsRecordsDirtyWhenThePageIsApplied(indexed: Bool) throws {
        try Self.withStore(indexed: indexed) { store in
            let local = try store.soups.create(Self.soup, ["Id": "001A", "Name": "Old"])
            let entryId = try #require(local["_soupEntryId"]?.number?.int64Value)
            try store.soups.updateLocally(Self.soup, entryId: entryId, changes: ["Name": "Edited"])
            let json = #"[{"Id":"001A","Name":"Server"},{"Name":"No id"},{"Id":"001C","Name":"C"}]"#
            try store.journal.append(Self.page(json, mode: .leaveIfChanged).journalDraft)
            let records = try Self.all(store)
            #expect(records.map { $0["Name"] } == ["Edited", "No id", "C"])
            #expect(records[0]["__local__"] == true)
        }
    }

    /// New records of a page go after every key of their soup (with `MDB_APPEND` in the newest
    /// soup): both placements, then a page replacing what they stored, fold as a rebuild does.
    @Test func newRecordsOfAPageAreStoredWhetherOrNotTheirSoupIsTheNewest() throws {
        try Self.withStore(indexed: true) { store in
            try store.soups.registerSoup("contacts", indexSpecs: [IndexSpec(path: "Id", type: .string)])
            let first = #"[{"Id":"001A","Name":"A"},{"Id":"001B","Name":"B"}]"#
            try store.journal.append(Self.page(first, mode: .overwrite).journalDraft)
            var contactsPage = Self.page(#"[{"Id":"003A","Name":"C"}]"#, syncId: 2, mode: .overwrite)
            contactsPage.soupName = "contacts"
            try store.journal.append(contactsPage.journalDraft)
            try store.journal.append(
                Self.page(#"[{"Id":"001B","Name":"B2"},{"Id":"001C","Name":"C"}]"#, number: 1, mode: .overwrite)
                    .journalDraft)
            #expect(try Self.all(store).map { $0["Name"] } == ["A", "B2", "C"])
            #expect(try Self.all(store).map { $0["_soupEntryId"]?.number?.int64Value } == [1, 2, 4])
            let contact = try store.soups.query(.exact("contacts", path: "Id", value: "003A", pageSize: 1))
            #expect(contact.map { $0["_soupEntryId"]?.number?.int64Value } == [3])
        }
    }

    @Test(arguments: [true, false])
    func aRecordRepeatedInOnePageIsStoredOnce(indexed: Bool) throws {
        try Self.withStore(indexed: indexed) { store in
            let json = #"[{"Id":"001A","Name":"First"},{"Id":"001A","Name":"Second"}]"#
            try store.journal.append(Self.page(json, mode: .overwrite).journalDraft)
            #expect(try Self.all(store).map { $0["Name"] } == ["Second"])
        }
    }

    /// Handed over, records are stored by splicing the added fields into their bytes in the page
    /// (or, for a record with a `_` key or in a soup indexing a `_` path, serialized again);
    /// `withStore`'s `verify` then compares every stored byte with a fold that parses the page.
    @Test(arguments: ["Name", "__local__"])
    func aPageHandedOverParsedFoldsExactlyLikeOneParsedFromTheJournal(secondIndexPath: String) throws {
        let records: [JSONValue] = [
            ["Id": "001A", "Name": "Server", "Amount": 12.50, "Tags": ["a", "é"], "attributes": ["type": "Account"]],
            ["Id": "001B", "Name": nil], ["Id": "001C", "_private": true, "zeta": 1], ["Id": "001D", "é": "above _"],
        ]
        let serialized = SerializedPage(records: records)
        var page = Self.page("", mode: .leaveIfChanged)
        page.records = serialized.bytes
        var folded: [[JSONValue]] = []
        for handsOver in [true, false] {
            try Self.withStore(indexed: true) { store in
                try store.soups.alterSoup(
                    Self.soup,
                    indexSpecs: [
                        IndexSpec(path: "Id", type: .string), IndexSpec(path: secondIndexPath, type: .string),
                    ],
                    reIndex: true)
                let local = try store.soups.create(Self.soup, ["Id": "001A", "Name": "Old"])
                _ = try store.soups.updateLocally(
                    Self.soup, entryId: try #require(local["_soupEntryId"]?.number?.int64Value),
                    changes: ["Name": "Edited"])
                if handsOver {
                    try store.soups.appendFetchedPages(
                        [FetchedPage(draft: page.journalDraft, page: serialized, records: records)])
                } else {
                    try store.journal.append(page.journalDraft)
                }
                folded.append(try Self.all(store))
            }
        }
        #expect(folded[0] == folded[1])
        #expect(folded[0].map { $0["Name"] } == ["Edited", .null, nil, nil])
        #expect(folded[0][1...].allSatisfy { $0["__local__"] == false && $0["__sync_id__"] == 1 })
    }

    @Test func aPageForAnUnknownSoupIsRefusedAndNothingIsAppended() throws {
        try Self.withStore(indexed: true) { store in
            var page = Self.page(#"[{"Id":"001A"}]"#, mode: .overwrite)
            page.soupName = "missing"
            let before = try store.journal.lastSequence()
            #expect(throws: SoupError.self) { try store.journal.append(page.journalDraft) }
            #expect(try store.journal.lastSequence() == before)
        }
    }

    @Test(arguments: [true, false])
    func ghostCleaningDeletesOnlyCleanRecordsOfItsSync(indexed: Bool) throws {
        try Self.withStore(indexed: indexed) { store in
            let json = #"[{"Id":"001A"},{"Id":"001B"},{"Id":"001C"}]"#
            try store.journal.append(Self.page(json, syncId: 1, mode: .overwrite).journalDraft)
            try store.journal.append(Self.page(#"[{"Id":"001D"}]"#, syncId: 2, mode: .overwrite).journalDraft)
            let dirty = try #require(try Self.all(store)[1]["_soupEntryId"]?.number?.int64Value)
            try store.soups.updateLocally(Self.soup, entryId: dirty, changes: ["Name": "Edited"])
            let cleaning = GhostCleaning(
                syncId: 1, soupName: Self.soup, idFieldName: "Id", remoteIds: ["001C"],
                ghostIds: ["001A", "001B", "001D"])
            try store.journal.append(cleaning.journalDraft)
            #expect(try Self.all(store).compactMap { $0["Id"]?.string } == ["001B", "001C", "001D"])
        }
    }

    /// Decision 0319: an unowned ghost is removed only if, when the entry is folded, it is still
    /// clean (`__local__` false) and still owned by no sync down.
    @Test(arguments: [true, false])
    func unownedGhostsAreRemovedOnlyWhileStillCleanAndUnowned(indexed: Bool) throws {
        try Self.withStore(indexed: indexed) { store in
            let clean: [String: JSONValue] = ["__local__": false, "attributes": ["type": "Account"]]
            for id in ["001A", "001B", "001C", "001E"] {
                try store.soups.create(Self.soup, .object(clean.merging(["Id": .string(id)]) { $1 }))
            }
            try store.soups.create(Self.soup, ["Id": "001F", "Name": "no flags"])
            // Since the engine's read: 001B was edited, 001C fetched by sync 2.
            let edited = try #require(try Self.all(store)[1]["_soupEntryId"]?.number?.int64Value)
            try store.soups.updateLocally(Self.soup, entryId: edited, changes: ["Name": "Edited"])
            try store.journal.append(Self.page(#"[{"Id":"001C"}]"#, syncId: 2, mode: .overwrite).journalDraft)
            let cleaning = GhostCleaning(
                syncId: 1, soupName: Self.soup, idFieldName: "Id", remoteIds: [], ghostIds: [],
                unownedGhostIds: ["001A", "001B", "001C", "001F"])
            try store.journal.append(cleaning.journalDraft)
            #expect(try Self.all(store).compactMap { $0["Id"]?.string } == ["001B", "001C", "001E", "001F"])
            #expect(try store.journal.verify().isConsistent)
        }
    }

    @Test func pagesMoveTheWatermarkOnlyWhenSortedAndSetTheTotalOnPageZero() throws {
        try Self.withStore(indexed: true) { store in
            let target = try SyncDownTargetDescriptor(.soql(query: "SELECT Name FROM Account"))
            let state = SyncState(
                id: 1, target: .syncDown(target), options: SyncOptions(), soupName: Self.soup)
            try store.journal.append(state.createdEntryDraft)
            var sorted = Self.page("[]", mode: .overwrite)
            sorted.maxTimeStamp = 5000
            sorted.totalSize = 7
            sorted.advancesWatermark = true
            try store.journal.append(sorted.journalDraft)
            var unsorted = sorted
            unsorted.pageNumber = 1
            unsorted.maxTimeStamp = 9000
            unsorted.advancesWatermark = false
            try store.journal.append(unsorted.journalDraft)
            let stored = try #require(try store.syncState(id: 1))
            #expect(stored.maxTimeStamp == 5000)
            #expect(stored.totalSize == 7)
        }
    }

    @Test func describedStateShowsEachSyncAsOfAnEntry() throws {
        try Self.withStore(indexed: true) { store in
            let target = try SyncDownTargetDescriptor(.soql(query: "SELECT Name FROM Account"))
            let state = SyncState(
                id: 1, name: "named", target: .syncDown(target), options: SyncOptions(), soupName: Self.soup)
            let created = try store.journal.append(state.createdEntryDraft)
            var sorted = Self.page("[]", mode: .overwrite)
            sorted.maxTimeStamp = 5000
            sorted.advancesWatermark = true
            try store.journal.append(sorted.journalDraft)
            let projection = SyncStateProjection()
            let before = try store.journal.withState(asOf: created.sequence) { context, _ in
                try projection.describeState(in: context, filter: ["sync": "named"])
            }
            let after = try store.journal.withState(asOf: UInt64.max) { context, _ in
                try projection.describeState(in: context, filter: ["soup": Self.soup])
            }
            #expect(before["syncs"]?["1"]?["maxTimeStamp"] == -1)
            #expect(after["syncs"]?["1"]?["maxTimeStamp"] == 5000)
            #expect(after["nextSyncId"] == 2)
            let none = try store.journal.withState(asOf: UInt64.max) { context, _ in
                try projection.describeState(in: context, filter: ["soup": "other"])
            }
            #expect(none["syncs"] == .object([:]))
        }
    }

    @Test func aStateEntryThatRenamesASyncIsRefused() throws {
        try Self.withStore(indexed: true) { store in
            let target = try SyncDownTargetDescriptor(.soql(query: "SELECT Name FROM Account"))
            var state = SyncState(
                id: 1, name: "a", target: .syncDown(target), options: SyncOptions(), soupName: Self.soup)
            try store.journal.append(state.createdEntryDraft)
            state.name = "b"
            #expect { try store.journal.append(state.changedEntryDraft) } throws: {
                ($0 as? SyncError)?.code == .malformedEntry
            }
            #expect(try store.syncState(named: "a") != nil)
        }
    }
}
