import EventJournal
import LosslessJSON
import Soups
import Testing

/// Bad input gets a typed error whose message names what is wrong, and changes nothing:
/// no journal entry, the same query results, the same projection bytes.
@Suite struct SoupBadInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var code: SoupError.Code
        /// A part of the message that names the soup, path or record at fault.
        var messageFragment: String
        var operation: @Sendable (SoupStore) throws -> Void
    }

    static let specs = [
        IndexSpec(path: "Id", type: .string), IndexSpec(path: "Amount", type: .integer),
        IndexSpec(path: "Note", type: .fullText),
    ]

    static let cases: [Case] = [
        Case(testDescription: "create in an unknown soup", code: .unknownSoup, messageFragment: "'nope'") {
            try $0.create("nope", ["Id": "1"])
        },
        Case(testDescription: "query an unknown soup", code: .unknownSoup, messageFragment: "'nope'") {
            _ = try $0.query(.all("nope"))
        },
        Case(testDescription: "upsert into an unknown soup", code: .unknownSoup, messageFragment: "'nope'") {
            try $0.upsert("nope", ["Id": "1"], externalIdPath: "Id")
        },
        Case(testDescription: "delete from an unknown soup", code: .unknownSoup, messageFragment: "'nope'") {
            try $0.delete("nope", ids: [1])
        },
        Case(testDescription: "exact on a path without index", code: .noIndexForPath, messageFragment: "'Name'") {
            _ = try $0.query(.exact("accounts", path: "Name", value: "x"))
        },
        Case(testDescription: "range on a path without index", code: .noIndexForPath, messageFragment: "'Name'") {
            _ = try $0.count(.range("accounts", path: "Name", from: "a", to: nil))
        },
        Case(testDescription: "like on a path without index", code: .noIndexForPath, messageFragment: "'Name'") {
            _ = try $0.query(.like("accounts", path: "Name", pattern: "%"))
        },
        Case(testDescription: "match on a path without full_text", code: .noIndexForPath, messageFragment: "'Id'") {
            _ = try $0.query(.match("accounts", path: "Id", expression: "x"))
        },
        Case(testDescription: "delete by a query without index", code: .noIndexForPath, messageFragment: "'Name'") {
            try $0.deleteByQuery(.exact("accounts", path: "Name", value: "x"))
        },
        Case(testDescription: "look up by a path without index", code: .noIndexForPath, messageFragment: "'Name'") {
            _ = try $0.lookupSoupEntryId("accounts", path: "Name", value: "x")
        },
        Case(
            testDescription: "upsert by an unindexed external id", code: .externalIdPathNotIndexed,
            messageFragment: "'Name'"
        ) { try $0.upsert("accounts", [["Id": "9", "Name": "x"]], externalIdPath: "Name") },
        Case(testDescription: "create a string record", code: .notAnObject, messageFragment: "'accounts'") {
            try $0.create("accounts", "text")
        },
        Case(testDescription: "create a batch with an array", code: .notAnObject, messageFragment: "'accounts'") {
            try $0.create("accounts", [["Id": "9"], ["Id", "10"]])
        },
        Case(testDescription: "update with a number", code: .notAnObject, messageFragment: "'accounts'") {
            try $0.update("accounts", 42, entryId: 1)
        },
        Case(testDescription: "upsert a batch ending in null", code: .notAnObject, messageFragment: "'accounts'") {
            try $0.upsert("accounts", [["Id": "9"], nil], externalIdPath: "Id")
        },
        Case(testDescription: "create locally a boolean", code: .notAnObject, messageFragment: "'accounts'") {
            try $0.createLocally("accounts", true)
        },
        Case(testDescription: "register with zero specs", code: .emptyIndexSpecs, messageFragment: "'contacts'") {
            try $0.registerSoup("contacts", indexSpecs: [])
        },
        Case(
            testDescription: "register one path with one type twice", code: .invalidIndexSpec,
            messageFragment: "'a' as string twice"
        ) {
            try $0.registerSoup(
                "contacts", indexSpecs: [IndexSpec(path: "a", type: .string), IndexSpec(path: "a", type: .string)])
        },
        Case(testDescription: "register an empty soup name", code: .invalidSoupName, messageFragment: "1 to 255") {
            try $0.registerSoup("", indexSpecs: [IndexSpec(path: "a", type: .string)])
        },
        Case(testDescription: "alter to zero specs", code: .emptyIndexSpecs, messageFragment: "'accounts'") {
            try $0.alterSoup("accounts", indexSpecs: [], reIndex: true)
        },
        Case(testDescription: "a config soup with zero specs", code: .emptyIndexSpecs, messageFragment: "'b'") {
            let text =
                #"{"soups": [{"soupName": "a", "indexes": [{"path": "x", "type": "string"}]},"#
                + #" {"soupName": "b", "indexes": []}]}"#
            try $0.register(StoreConfig(parsing: Array(text.utf8)))
        },
    ]

    @Test(arguments: cases)
    func badInputIsRefusedWithATypedErrorAndChangesNothing(_ badInput: Case) throws {
        let fixture = try SoupFixture()
        defer { fixture.remove() }
        try fixture.store.registerSoup("accounts", indexSpecs: Self.specs)
        try fixture.store.create("accounts", [["Id": "1", "Amount": 5, "Note": "red fox"], ["Id": "2"]])
        let sequence = try fixture.journal.lastSequence()
        let records = try fixture.store.query(.all("accounts", pageSize: 100))
        let state = try fixture.projectionState()

        #expect {
            try badInput.operation(fixture.store)
        } throws: { error in
            guard let error = error as? SoupError else { return false }
            return error.code == badInput.code && error.message.contains(badInput.messageFragment)
        }
        #expect(try fixture.journal.lastSequence() == sequence)
        #expect(try fixture.store.query(.all("accounts", pageSize: 100)) == records)
        #expect(try fixture.store.soupNames() == ["accounts"])
        #expect(try fixture.projectionState() == state)
    }
}
