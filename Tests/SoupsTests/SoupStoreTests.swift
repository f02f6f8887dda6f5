import Determinism
import EventJournal
import LosslessJSON
import Soups
import Testing

@Suite struct SoupStoreTests {
    let specs = [IndexSpec(path: "Id", type: .string), IndexSpec(path: "Amount", type: .integer)]

    @Test func registeringTwiceKeepsTheFirstSpecs() throws {
        let fixture = try SoupFixture()
        defer { fixture.remove() }
        try fixture.store.registerSoup("accounts", indexSpecs: specs)
        try fixture.store.registerSoup("accounts", indexSpecs: [IndexSpec(path: "Name", type: .string)])
        #expect(try fixture.store.indexSpecs(of: "accounts") == specs)
        #expect(try fixture.store.hasSoup("accounts"))
        #expect(try !fixture.store.hasSoup("contacts"))
        try fixture.store.registerSoup("contacts", indexSpecs: specs)
        #expect(try fixture.store.soupNames() == ["accounts", "contacts"])
        #expect(try fixture.journal.count(of: "soup.registered") == 2)
    }

    @Test func createStampsIdsAndTimeFromTheClock() throws {
        let fixture = try SoupFixture()
        defer { fixture.remove() }
        try fixture.store.registerSoup("accounts", indexSpecs: specs)
        let created = try fixture.store.create("accounts", [["Id": "1"], ["Id": "2"]])
        #expect(created.map(\.entryId) == [1, 2])
        let stamp = created[0]["_soupLastModifiedDate"]?.number?.int64Value
        #expect(stamp != nil)
        #expect(stamp! >= 1_700_000_000_000)
        #expect(try fixture.store.retrieve("accounts", ids: [2, 99, 1]) == [created[1], created[0]])
        #expect(try fixture.journal.count(of: "soup.saved") == 1)
    }

    @Test func entryIdsAreNeverReusedAfterDeleteClearOrDrop() throws {
        let fixture = try SoupFixture()
        defer { fixture.remove() }
        try fixture.store.registerSoup("accounts", indexSpecs: specs)
        let first = try fixture.store.create("accounts", ["Id": "a"])
        try fixture.store.delete("accounts", ids: [first.entryId!])
        #expect(try fixture.store.create("accounts", ["Id": "b"]).entryId == 2)
        try fixture.store.clearSoup("accounts")
        #expect(try fixture.store.count(.all("accounts")) == 0)
        #expect(try fixture.store.create("accounts", ["Id": "c"]).entryId == 3)
        try fixture.store.dropSoup("accounts")
        #expect(throws: SoupError.self) { try fixture.store.count(.all("accounts")) }
        try fixture.store.registerSoup("accounts", indexSpecs: specs)
        #expect(try fixture.store.count(.all("accounts")) == 0)
        #expect(try fixture.store.create("accounts", ["Id": "d"]).entryId == 4)
        #expect(try fixture.rebuildMatches())
    }

    /// A rebuild parses of each saved record only the members its fold reads (the index paths'
    /// first components, the entry id, the date, the local flag): it must store what the
    /// append stored, for nested and array paths, full-text indexes, local records
    /// and members the fold skips, however those are written (hashed indexes: HashedIndexTests).
    @Test func aRebuildThatSkipsUnreadMembersStoresWhatTheAppendStored() throws {
        let fixture = try SoupFixture()
        defer { fixture.remove() }
        try fixture.store.registerSoup(
            "accounts",
            indexSpecs: [
                IndexSpec(path: "Id", type: .string), IndexSpec(path: "attributes.type", type: .string),
                IndexSpec(path: "Tags.name", type: .json1), IndexSpec(path: "Notes", type: .fullText),
                IndexSpec(path: "Email", type: .string), IndexSpec(path: "Amount", type: .integer),
            ])
        try fixture.store.registerSoup("other", indexSpecs: [IndexSpec(path: "Name", type: .string)])
        for index in 0..<40 {
            let record: JSONValue = [
                "Id": .string("001\(index)"), "attributes": ["type": "Account", "url": .string("/x/\(index)")],
                "Tags": [["name": .string("t\(index % 3)")], ["name": "all"]],
                "Notes": .string("Café \(index) ünïcode"),
                "Email": .string("a\(index)@example.com"), "Amount": .number(JSONNumber(Int64(index * 7))),
                "Skipped": ["deep": [1, 2, ["x": "\"quoted\"\n"]], "text": "tab\there 😀"], "Nothing": nil,
            ]
            if index.isMultiple(of: 2) {
                try fixture.store.create("accounts", record)
            } else {
                try fixture.store.createLocally("accounts", record)
            }
            try fixture.store.create("other", ["Name": .string("n\(index)"), "Id": "shared"])
        }
        try fixture.store.updateLocally("accounts", entryId: 1, changes: ["Amount": 1, "Skipped": "changed"])
        #expect(try fixture.rebuildMatches())
    }

    /// A save whose header names another soup than its payload is folded by its payload, whole.
    @Test func aSaveIsFoldedByItsPayloadsSoupWhateverItsHeaderSays() throws {
        let fixture = try SoupFixture()
        defer { fixture.remove() }
        try fixture.store.registerSoup("accounts", indexSpecs: specs)
        try fixture.store.registerSoup("other", indexSpecs: [IndexSpec(path: "Name", type: .string)])
        let record: JSONValue = ["Id": "a", "Amount": 3, "Name": "kept", "Extra": [1, 2], "_soupEntryId": 1]
        try fixture.journal.append(
            JournalEntry.Draft(
                kind: "soup.saved", header: ["soup": .string("other")],
                json: ["soup": "accounts", "records": [record]]))
        try fixture.journal.rebuild()
        #expect(try fixture.store.retrieve("accounts", ids: [1]) == [record])
        #expect(try fixture.store.query(.exact("accounts", path: "Amount", value: 3, pageSize: 10)) == [record])
    }

    @Test func dropAllSoupsRemovesEverySoupInOneEntryBatch() throws {
        let fixture = try SoupFixture()
        defer { fixture.remove() }
        for soup in ["b", "a"] {
            try fixture.store.registerSoup(soup, indexSpecs: specs)
            try fixture.store.create(soup, ["Id": "x"])
        }
        let before = try fixture.store.journal.read { try $0.lastSequence }
        #expect(try fixture.store.dropAllSoups() == ["a", "b"])
        #expect(try fixture.store.soupNames().isEmpty)
        #expect(try fixture.store.journal.read { try $0.lastSequence } == before + 2)
        #expect(try fixture.store.dropAllSoups().isEmpty)
        #expect(try fixture.rebuildMatches())
    }

    @Test func updateReplacesTheWholeRecordAndItsIndexEntries() throws {
        let fixture = try SoupFixture()
        defer { fixture.remove() }
        try fixture.store.registerSoup("accounts", indexSpecs: specs)
        let created = try fixture.store.create("accounts", ["Id": "1", "Amount": 5, "Extra": true])
        fixture.clock.advance(by: .seconds(1))
        let updated = try fixture.store.update("accounts", ["Id": "1", "Amount": 7], entryId: created.entryId!)
        #expect(updated["Extra"] == nil)
        #expect(updated["_soupLastModifiedDate"] != created["_soupLastModifiedDate"])
        #expect(try fixture.store.query(.exact("accounts", path: "Amount", value: 5)).isEmpty)
        #expect(try fixture.store.query(.exact("accounts", path: "Amount", value: 7)) == [updated])
        expectError(.unknownEntry) {
            try fixture.store.update("accounts", ["Id": "x"], entryId: 42)
        }
    }

    @Test func upsertMatchesBySoupEntryIdOrByIndexedExternalId() throws {
        let fixture = try SoupFixture()
        defer { fixture.remove() }
        try fixture.store.registerSoup("accounts", indexSpecs: specs)
        let first = try fixture.store.upsert("accounts", ["Id": "001", "Name": "A"], externalIdPath: "Id")
        let second = try fixture.store.upsert("accounts", ["Id": "001", "Name": "B"], externalIdPath: "Id")
        #expect(first.entryId == second.entryId)
        let byEntryId = try fixture.store.upsert("accounts", ["_soupEntryId": 1, "Id": "001", "Name": "C"])
        #expect(byEntryId.entryId == 1)
        // SmartStore refuses an upsert by external id without a value: created, it would be
        // copied again by every later upsert of the record.
        let sequence = try fixture.journal.lastSequence()
        expectError(.invalidQuery) { try fixture.store.upsert("accounts", ["Name": "D"], externalIdPath: "Id") }
        expectError(.invalidQuery) {
            try fixture.store.upsert("accounts", ["Id": .null, "Name": "D"], externalIdPath: "Id")
        }
        #expect(try fixture.journal.lastSequence() == sequence)
        let fresh = try fixture.store.upsert("accounts", ["Name": "D"])
        #expect(fresh.entryId == 2)
        let batch = try fixture.store.upsert(
            "accounts", [["Id": "002", "Name": "E"], ["Id": "002", "Name": "F"]], externalIdPath: "Id")
        #expect(batch[0].entryId == batch[1].entryId)
        #expect(try fixture.store.count(.all("accounts")) == 3)
        #expect(try fixture.store.lookupSoupEntryId("accounts", path: "Id", value: "002") == batch[0].entryId)
        #expect(try fixture.store.lookupSoupEntryId("accounts", path: "Id", value: "none") == nil)
    }

    @Test func upsertByExternalIdRefusesDuplicatesAndUnindexedPaths() throws {
        let fixture = try SoupFixture()
        defer { fixture.remove() }
        try fixture.store.registerSoup("accounts", indexSpecs: specs)
        try fixture.store.create("accounts", [["Id": "dup"], ["Id": "dup"]])
        let sequence = try fixture.journal.lastSequence()
        expectError(.duplicateExternalId) {
            try fixture.store.upsert("accounts", ["Id": "dup"], externalIdPath: "Id")
        }
        expectError(.externalIdPathNotIndexed) {
            try fixture.store.upsert("accounts", ["Name": "x"], externalIdPath: "Name")
        }
        #expect(try fixture.journal.lastSequence() == sequence)
    }

    @Test func deleteByQueryDeletesEveryMatchWhateverThePageSize() throws {
        let fixture = try SoupFixture()
        defer { fixture.remove() }
        try fixture.store.registerSoup("accounts", indexSpecs: specs)
        try fixture.store.create("accounts", (0..<30).map { ["Amount": .number(JSONNumber(Int64($0)))] })
        let deleted = try fixture.store.deleteByQuery(
            .range("accounts", path: "Amount", from: 10, to: nil, pageSize: 2))
        #expect(deleted == 20)
        #expect(try fixture.store.count(.all("accounts")) == 10)
        #expect(try fixture.store.deleteByQuery(.exact("accounts", path: "Amount", value: 999)) == 0)
        #expect(try fixture.rebuildMatches())
    }

    @Test func badInputGetsATypedErrorAndLeavesTheStoreUnchanged() throws {
        let fixture = try SoupFixture()
        defer { fixture.remove() }
        try fixture.store.registerSoup("accounts", indexSpecs: specs)
        try fixture.store.create("accounts", ["Id": "1"])
        let before = try fixture.projectionState()
        let sequence = try fixture.journal.lastSequence()
        let store = fixture.store
        expectError(.unknownSoup) { try store.create("nope", ["Id": "1"]) }
        expectError(.unknownSoup) { try store.query(.all("nope")) }
        expectError(.notAnObject) { try store.create("accounts", [["Id": "2"], "text"]) }
        expectError(.notAnObject) { try store.upsert("accounts", [1, 2]) }
        expectError(.emptyIndexSpecs) { try store.registerSoup("empty", indexSpecs: []) }
        expectError(.emptyIndexSpecs) { try store.alterSoup("accounts", indexSpecs: [], reIndex: true) }
        expectError(.invalidIndexSpec) {
            try store.registerSoup("bad", indexSpecs: [IndexSpec(path: "", type: .string)])
        }
        expectError(.invalidSoupName) { try store.registerSoup("", indexSpecs: specs) }
        expectError(.noIndexForPath) { try store.query(.exact("accounts", path: "Name", value: "x")) }
        expectError(.noIndexForPath) { try store.deleteByQuery(.like("accounts", path: "N", pattern: "%")) }
        expectError(.noIndexForPath) { try store.query(.match("accounts", expression: "x")) }
        expectError(.noIndexForPath) { try store.reIndexSoup("accounts", paths: ["Name"]) }
        expectError(.unknownSoup) { try store.clearSoup("nope") }
        expectError(.unknownEntry) { try store.upsert("accounts", ["_soupEntryId": 77]) }
        expectError(.unknownEntry) { try store.updateLocally("accounts", entryId: 77, changes: [:]) }
        #expect(try fixture.journal.lastSequence() == sequence)
        #expect(try fixture.projectionState() == before)
    }

    @Test func alterWithoutReIndexLeavesNewIndexesNullUntilRecordsAreSaved() throws {
        let fixture = try SoupFixture()
        defer { fixture.remove() }
        try fixture.store.registerSoup("accounts", indexSpecs: specs)
        let created = try fixture.store.create(
            "accounts", [["Id": "1", "Name": "Acme"], ["Id": "2", "Name": "Bolt"]])
        let newSpecs = specs + [IndexSpec(path: "Name", type: .string)]
        try fixture.store.alterSoup("accounts", indexSpecs: newSpecs, reIndex: false)
        #expect(try fixture.store.indexSpecs(of: "accounts") == newSpecs)
        #expect(try fixture.store.query(.exact("accounts", path: "Name", value: "Acme")).isEmpty)
        #expect(try fixture.store.count(.range("accounts", path: "Name", from: nil, to: nil)) == 2)
        #expect(try fixture.store.query(.exact("accounts", path: "Id", value: "2")).map(\.entryId) == [2])
        try fixture.store.update("accounts", created[0], entryId: 1)
        #expect(try fixture.store.query(.exact("accounts", path: "Name", value: "Acme")).map(\.entryId) == [1])
        try fixture.store.reIndexSoup("accounts", paths: ["Name"])
        #expect(try fixture.store.query(.exact("accounts", path: "Name", value: "Bolt")).map(\.entryId) == [2])
        #expect(try fixture.rebuildMatches())
    }

    @Test func alterWithReIndexIndexesExistingRecordsAndDropsRemovedIndexes() throws {
        let fixture = try SoupFixture()
        defer { fixture.remove() }
        try fixture.store.registerSoup("accounts", indexSpecs: specs)
        try fixture.store.create("accounts", [["Id": "1", "Note": "red fox"], ["Id": "2", "Note": "blue fox"]])
        try fixture.store.alterSoup(
            "accounts", indexSpecs: [IndexSpec(path: "Id", type: .string), IndexSpec(path: "Note", type: .fullText)],
            reIndex: true)
        #expect(try fixture.store.query(.match("accounts", expression: "red")).map(\.entryId) == [1])
        expectError(.noIndexForPath) {
            try fixture.store.query(.exact("accounts", path: "Amount", value: 1))
        }
        #expect(try fixture.store.query(.exact("accounts", path: "Id", value: "2")).map(\.entryId) == [2])
        #expect(try fixture.rebuildMatches())
    }

    @Test func storeConfigRegistersNewSoupsAndSkipsExistingOnes() throws {
        let fixture = try SoupFixture()
        defer { fixture.remove() }
        try fixture.store.registerSoup("accounts", indexSpecs: specs)
        let config = try StoreConfig(
            parsing: Array(
                """
                {"soups": [
                  {"soupName": "accounts", "indexes": [{"path": "Name", "type": "string"}]},
                  {"soupName": "contacts", "indexes": [{"path": "Id", "type": "string"},
                    {"path": "Bio", "type": "full_text"}, {"path": "Owner.Name", "type": "json1"}]}
                ]}
                """.utf8))
        #expect(try fixture.store.register(config) == ["contacts"])
        #expect(try fixture.store.indexSpecs(of: "accounts") == specs)
        #expect(try fixture.store.indexSpecs(of: "contacts").map(\.type) == [.string, .fullText, .json1])
    }

    @Test(arguments: [
        "not json", "{}", "{\"soups\": [{}]}", "{\"soups\": [{\"soupName\": \"a\"}]}",
        "{\"soups\": [{\"soupName\": \"a\", \"indexes\": [{\"path\": \"x\", \"type\": \"blob\"}]}]}",
    ])
    func malformedStoreConfigsAreRefused(text: String) {
        expectError(.invalidConfig) { try StoreConfig(parsing: Array(text.utf8)) }
    }

    @Test func storeConfigWithAnEmptySoupRegistersNothing() throws {
        let fixture = try SoupFixture()
        defer { fixture.remove() }
        let config = try StoreConfig(
            parsing: Array(
                "{\"soups\": [{\"soupName\": \"a\", \"indexes\": [{\"path\": \"x\", \"type\": \"string\"}]}, {\"soupName\": \"b\", \"indexes\": []}]}"
                    .utf8))
        expectError(.emptyIndexSpecs) { try fixture.store.register(config) }
        #expect(try fixture.store.soupNames().isEmpty)
    }
}
