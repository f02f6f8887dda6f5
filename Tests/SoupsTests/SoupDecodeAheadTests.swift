import EventJournal
import LosslessJSON
import Soups
import Testing

/// A rebuild decodes saves ahead of the fold, on a second thread, trimming each record to the
/// members its soup's fold reads as far as the decoder knows them; an alter the fold meets
/// after the decoder was made must not leave an index built from a record missing members.
@Suite struct SoupDecodeAheadTests {
    private static func record(_ number: Int) -> JSONValue {
        [
            "Id": .string("a\(number)"), "Email": .string("e\(number)@example.com"),
            "Amount": .number(JSONNumber(Int64(number * 3))), "Notes": ["deep": [1, ["x": .string("n\(number)")]]],
        ]
    }

    /// Rebuilt in transactions of 70 entries: `accounts`, indexed by `Id`, and its first 100
    /// records (entries 1–101).
    private static func accountsIndexedById() throws -> SoupFixture {
        let fixture = try SoupFixture("soups-decode-ahead", rebuildBatchSize: 70)
        try fixture.store.registerSoup("accounts", indexSpecs: [IndexSpec(path: "Id", type: .string)])
        for number in 0..<100 { try fixture.store.create("accounts", record(number)) }
        return fixture
    }

    /// Transactions of 70 entries: the decoder of each knows the soups as folded before it
    /// and follows the registrations, alters and drops it decodes itself, while alters, drops
    /// and registrations land in the middle of transactions.
    @Test func aRebuildDecodingAheadStoresWhatTheAppendStoredWhereverSoupsChange() throws {
        let fixture = try Self.accountsIndexedById()
        defer { fixture.remove() }
        let store = fixture.store
        // Entry 102, in the middle of the second transaction, whose decoder started with `Id` only.
        try store.alterSoup(
            "accounts", indexSpecs: [IndexSpec(path: "Id", type: .string), IndexSpec(path: "Email", type: .string)],
            reIndex: false)
        for number in 100..<150 { try store.create("accounts", Self.record(number)) }
        try store.alterSoup(
            "accounts",
            indexSpecs: [
                IndexSpec(path: "Id", type: .string), IndexSpec(path: "Email", type: .string),
                IndexSpec(path: "Amount", type: .integer),
            ], reIndex: true)
        for number in 150..<200 { try store.create("accounts", Self.record(number)) }
        try store.dropSoup("accounts")
        try store.registerSoup(
            "accounts",
            indexSpecs: [IndexSpec(path: "Notes.deep.x", type: .json1), IndexSpec(path: "Email", type: .string)])
        for number in 200..<300 { try store.create("accounts", Self.record(number)) }
        #expect(try store.query(.exact("accounts", path: "Email", value: "e250@example.com", pageSize: 10)).count == 1)
        #expect(try fixture.rebuildMatches())
    }

    /// An alter whose header names another soup than its payload is folded by its payload, so
    /// the decoder cannot follow it, and the saves after it were decoded for the soup's old
    /// indexes. An index on a new member (`Email`) leaves their records trimmed without it: the
    /// fold must parse them again. One on a member the fold already reads (`Id`) leaves the
    /// parse usable but not the index keys the decoder computed: the fold must compute them again.
    @Test(arguments: [
        (
            ["path": "Email", "type": "string"] as JSONValue,
            QuerySpec.exact("accounts", path: "Email", value: "e120@example.com")
        ),
        (
            ["path": "Id", "type": "full_text"] as JSONValue,
            QuerySpec.match("accounts", path: "Id", expression: "a120")
        ),
    ])
    func savesDecodedForIndexesAnAlterChangedAreParsedAndIndexedAgain(added: JSONValue, query: QuerySpec) throws {
        let fixture = try Self.accountsIndexedById()
        defer { fixture.remove() }
        let store = fixture.store
        try Self.appendAlterTheDecoderCannotFollow(adding: added, in: fixture)
        for number in 100..<150 { try store.create("accounts", Self.record(number)) }
        #expect(try store.query(query).count == 1)
        #expect(try fixture.rebuildMatches())
    }

    /// Appends an alter of `accounts` (re-indexing) that adds `index`, under a header naming
    /// another soup: it is folded by its payload, and the decoder cannot follow it.
    private static func appendAlterTheDecoderCannotFollow(adding index: JSONValue, in fixture: SoupFixture) throws {
        let registered = try #require(try fixture.journal.entry(at: 1)?.jsonPayload().object)
        let nextIndexId = try #require(registered["nextIndexId"]?.number?.int64Value)
        var added = try #require(index.object)
        added["id"] = .number(JSONNumber(nextIndexId))
        var altered = registered
        altered["indexes"] = .array((registered["indexes"]?.array ?? []) + [.object(added)])
        altered["nextIndexId"] = .number(JSONNumber(nextIndexId + 1))
        altered["reIndex"] = true
        try fixture.journal.append(
            JournalEntry.Draft(kind: "soup.altered", header: ["soup": .string("decoy")], json: .object(altered)))
    }
}
