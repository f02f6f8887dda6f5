import Determinism
import EventJournal
import LosslessJSON
import MobileSync
import Soups
import SyncTesting
import Testing

/// The soup fold of parent/children `sync.down.page` entries appended directly, with and
/// without indexes on the id and parent id fields.
@Suite struct ParentChildrenPageFoldTests {
    static let children = SyncDownPageDestination.Children(
        soupName: "contacts", relationshipName: "Contacts", idFieldName: "Id",
        modificationDateFieldName: "LastModifiedDate", parentIdFieldName: "AccountId")

    static func withStore(indexed: Bool, _ body: (SyncStore) throws -> Void) throws {
        let directory = try TemporaryDirectory("tree-fold")
        defer { directory.remove() }
        let store = try SyncStore(
            directory: directory.appending("store"), clock: ManualWallClock(tick: .milliseconds(1)),
            idGenerator: IncrementingIDGenerator(), logger: .discarding)
        let accounts = indexed ? [IndexSpec(path: "Id", type: .string)] : [IndexSpec(path: "Name", type: .string)]
        let contacts =
            indexed
            ? [IndexSpec(path: "Id", type: .string), IndexSpec(path: "AccountId", type: .string)]
            : [IndexSpec(path: "LastName", type: .string)]
        try store.soups.registerSoup("accounts", indexSpecs: accounts)
        try store.soups.registerSoup("contacts", indexSpecs: contacts)
        try body(store)
        let report = try store.journal.verify()
        #expect(report.isConsistent, "verify: \(report.divergences)")
    }

    static func page(_ json: String, mode: MergeMode) -> SyncDownPage {
        SyncDownPage(
            syncId: 4, soupName: "accounts", pageNumber: 0, records: Array(json.utf8), totalSize: 2, maxTimeStamp: -1,
            advancesWatermark: false, idFieldName: "Id", mergeMode: mode, children: children)
    }

    static let twoTrees = """
        [{"Id":"001A","Name":"A","Contacts":{"totalSize":2,"done":true,"records":[{"Id":"003A","LastName":"A1"},{"Id":"003B","LastName":"A2"}]}},
         {"Id":"001B","Name":"B","Contacts":null}]
        """

    static func all(_ store: SyncStore, _ soup: String) throws -> [JSONValue] {
        try store.soups.query(QuerySpec.all(soup, orderPath: "_soupEntryId", pageSize: 100))
    }

    @Test(arguments: [true, false])
    func parentsLoseTheirNestedChildrenWhichGoToTheirSoupWithTheParentId(indexed: Bool) throws {
        try Self.withStore(indexed: indexed) { store in
            try store.journal.append(Self.page(Self.twoTrees, mode: .overwrite).journalDraft)
            let accounts = try Self.all(store, "accounts")
            let contacts = try Self.all(store, "contacts")
            #expect(accounts.map { $0["Id"] } == ["001A", "001B"])
            #expect(accounts.allSatisfy { $0["Contacts"] == nil })
            #expect(contacts.map { $0["Id"] } == ["003A", "003B"])
            #expect(
                contacts.allSatisfy { $0["AccountId"] == "001A" && $0["__sync_id__"] == 4 && $0["__local__"] == false })
            // One counter for both soups: parent, its children, the next parent.
            let ids = (accounts + contacts).compactMap { $0["_soupEntryId"]?.number?.int64Value }.sorted()
            #expect(ids == [1, 2, 3, 4])
            // Applying the same page again matches every record instead of adding copies.
            try store.journal.append(Self.page(Self.twoTrees, mode: .overwrite).journalDraft)
            #expect(try Self.all(store, "contacts").count == 2)
            #expect(try Self.all(store, "accounts").count == 2)
        }
    }

    @Test(arguments: [true, false])
    func leaveIfChangedSkipsOnlyTheRecordsDirtyWhenThePageIsApplied(indexed: Bool) throws {
        try Self.withStore(indexed: indexed) { store in
            try store.journal.append(Self.page(Self.twoTrees, mode: .overwrite).journalDraft)
            let all = try Self.all(store, "contacts")
            let a1 = try #require(all.first { $0["Id"] == "003A" }?["_soupEntryId"]?.number?.int64Value)
            try store.soups.updateLocally("contacts", entryId: a1, changes: ["LastName": "A1 mine"])
            let accounts = try Self.all(store, "accounts")
            let b = try #require(accounts.first { $0["Id"] == "001B" }?["_soupEntryId"]?.number?.int64Value)
            try store.soups.updateLocally("accounts", entryId: b, changes: ["Name": "B mine"])
            let next = """
                [{"Id":"001A","Name":"A server","Contacts":{"records":[{"Id":"003A","LastName":"A1 server"},{"Id":"003B","LastName":"A2 server"}]}},
                 {"Id":"001B","Name":"B server","Contacts":{"records":[{"Id":"003C","LastName":"B1"}]}}]
                """
            try store.journal.append(Self.page(next, mode: .leaveIfChanged).journalDraft)
            let names = try Self.all(store, "accounts").map { $0["Name"] }
            #expect(names == ["A server", "B mine"])
            let contacts = Dictionary(uniqueKeysWithValues: try Self.all(store, "contacts").map { ($0["Id"], $0) })
            #expect(contacts["003A"]?["LastName"] == "A1 mine")
            #expect(contacts["003A"]?["__local__"] == true)
            #expect(contacts["003B"]?["LastName"] == "A2 server")
            #expect(contacts["003C"]?["AccountId"] == "001B", "the children of a dirty parent are written")
        }
    }

    @Test func aChildThatIsNotAnObjectIsATypedError() throws {
        try Self.withStore(indexed: true) { store in
            let bad = #"[{"Id":"001A","Contacts":{"records":[42]}}]"#
            #expect(throws: SoupError.self) {
                try store.journal.append(Self.page(bad, mode: .overwrite).journalDraft)
            }
            let accounts = try Self.all(store, "accounts")
            #expect(accounts.isEmpty)
        }
    }

    @Test func aPageNamingAnUnknownChildrenSoupIsRefused() throws {
        try Self.withStore(indexed: true) { store in
            var page = Self.page(Self.twoTrees, mode: .overwrite)
            page.children?.soupName = "nowhere"
            #expect(throws: SoupError.self) { try store.journal.append(page.journalDraft) }
        }
    }

    @Test func thePageEntryRoundTripsItsChildrenHeaders() throws {
        let page = Self.page(Self.twoTrees, mode: .leaveIfChanged)
        let entry = SyncJournalEntryTests.entry(page.journalDraft)
        #expect(try SyncDownPage(journalEntry: entry) == page)
    }

    @Test func theWatermarkOfATreePageCountsTheChildrenUnlessAParentLacksADate() throws {
        let records = try JSONValue(
            parsing: """
                [{"LastModifiedDate":"2024-01-01T00:00:00.000+0000",
                  "Contacts":{"records":[{"LastModifiedDate":"2024-03-01T00:00:00.000+0000"}]}},
                 {"LastModifiedDate":"2024-02-01T00:00:00.000+0000","Contacts":null}]
                """)
        let parents = try #require(records.array)
        let march = try #require(WallTime(iso8601: "2024-03-01T00:00:00.000+0000")).millisecondsSinceEpoch
        #expect(
            SyncDownPage.latestModificationTimeStamp(
                ofParents: parents, fieldName: "LastModifiedDate", children: Self.children) == march)
        let undated = parents + [["Name": "no date"]]
        #expect(
            SyncDownPage.latestModificationTimeStamp(
                ofParents: undated, fieldName: "LastModifiedDate", children: Self.children) == -1)
    }
}
