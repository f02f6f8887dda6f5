import EventJournal
import LosslessJSON
import Testing

@testable import Soups

/// A group by an indexed column, whose values come from the index's keys as bytes: SQLite gets
/// the same values, of the same types, as from the records (text stays text, integers integers,
/// reals reals, NULL NULL), so the groups, their order and their counts are SQLite's.
@Suite struct SmartSQLGroupByTests {
    /// A soup of text, integer and floating indexes, holding long and short text, empty text,
    /// a NUL byte, non-ASCII text, the largest integer, fractions, NULL and missing values.
    static func fixture(encryption: StoreKey? = nil) throws -> SoupFixture {
        let fixture = try SoupFixture("smart-sql-group-by", encryption: encryption)
        try fixture.store.registerSoup(
            "kinds",
            indexSpecs: [
                IndexSpec(path: "name", type: .string), IndexSpec(path: "rank", type: .integer),
                IndexSpec(path: "score", type: .floating),
            ])
        let records: [JSONValue] = [
            ["name": "Financial Services", "rank": 3, "score": 1.5],
            ["name": "Technology", "rank": -1, "score": 2],
            ["name": "Financial Services", "rank": 3, "score": 1.5],
            ["name": "", "rank": 9_223_372_036_854_775_807, "score": -0.5],
            ["name": "nul\u{0}inside", "rank": .null, "score": .null],
            ["name": "é", "score": 1e300],
            ["rank": 0],
            ["name": .null, "rank": 3],
        ]
        // Copies enough for the planner to prefer the index walk to a scan and a sort.
        try fixture.store.create("kinds", Array(repeating: records, count: copies).flatMap { $0 })
        return fixture
    }

    /// How many times the fixture holds each record: each group's count is a multiple of it.
    static let copies = 40

    static func key() throws -> StoreKey {
        try StoreKey(bytes: [UInt8](repeating: 5, count: StoreKey.byteCount))
    }

    /// The hexadecimal of `text`'s UTF-8 bytes, as SQLite's `hex()` gives it.
    static func hex(_ text: String) -> JSONValue {
        let digits = Array("0123456789ABCDEF")
        return .string(String(text.utf8.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }))
    }

    /// The count of a group of `records` of the records given before copying.
    static func count(_ records: Int64) -> JSONValue {
        .number(JSONNumber(records * Int64(copies)))
    }

    static func real(_ number: Double) -> JSONValue {
        .number(JSONNumber(number))
    }

    /// The rows of `sql` read through the index walks, after checking that the group by walks
    /// the index, and that the rows are those of a scan that leaves the grouping to SQLite.
    static func groupedRows(_ fixture: SoupFixture, _ sql: String, index: String) throws -> [JSONValue] {
        #expect(try fixture.store.explainSmartQuery(.smart(sql: sql)).joined().contains("index on \(index)"), "\(sql)")
        let (indexed, scanned) = try SmartSQLIndexWalkTests.bothWays(fixture, sql)
        #expect(indexed == scanned, "\(sql)")
        return indexed
    }

    @Test(arguments: [false, true]) func aGroupByTextGivesSQLitesGroupsOfTheSameBytes(encrypted: Bool) throws {
        let fixture = try Self.fixture(encryption: encrypted ? Self.key() : nil)
        let rows = try Self.groupedRows(
            fixture,
            "select {kinds:name}, typeof({kinds:name}), hex({kinds:name}), count(*) from {kinds} group by {kinds:name}",
            index: "name")
        let expected: [JSONValue] = [
            [.null, "null", "", Self.count(2)],
            ["", "text", "", Self.count(1)],
            ["Financial Services", "text", Self.hex("Financial Services"), Self.count(2)],
            ["Technology", "text", Self.hex("Technology"), Self.count(1)],
            ["nul\u{0}inside", "text", Self.hex("nul\u{0}inside"), Self.count(1)],
            ["é", "text", "C3A9", Self.count(1)],
        ]
        #expect(rows == expected)
    }

    @Test(arguments: [false, true]) func aGroupByIntegersGivesSQLitesIntegerGroups(encrypted: Bool) throws {
        let fixture = try Self.fixture(encryption: encrypted ? Self.key() : nil)
        let rows = try Self.groupedRows(
            fixture, "select {kinds:rank}, typeof({kinds:rank}), count(*) from {kinds} group by {kinds:rank}",
            index: "rank")
        let expected: [JSONValue] = [
            [.null, "null", Self.count(2)],
            [-1, "integer", Self.count(1)],
            [0, "integer", Self.count(1)],
            [3, "integer", Self.count(3)],
            [9_223_372_036_854_775_807, "integer", Self.count(1)],
        ]
        #expect(rows == expected)
    }

    @Test(arguments: [false, true]) func aGroupByRealsGivesSQLitesRealGroups(encrypted: Bool) throws {
        let fixture = try Self.fixture(encryption: encrypted ? Self.key() : nil)
        let rows = try Self.groupedRows(
            fixture, "select {kinds:score}, typeof({kinds:score}), count(*) from {kinds} group by {kinds:score}",
            index: "score")
        let expected: [JSONValue] = [
            [.null, "null", Self.count(3)],
            [Self.real(-0.5), "real", Self.count(1)],
            [Self.real(1.5), "real", Self.count(2)],
            [Self.real(2), "real", Self.count(1)],
            [Self.real(1e300), "real", Self.count(1)],
        ]
        #expect(rows == expected)
    }

    /// A descending group by walks the index backwards and gives the groups in reverse.
    @Test func aDescendingGroupByGivesTheGroupsInReverse() throws {
        let fixture = try Self.fixture()
        let rows = try Self.groupedRows(
            fixture, "select {kinds:name}, count(*) from {kinds} group by {kinds:name} order by {kinds:name} desc",
            index: "name")
        let expected: [JSONValue] = [
            ["é", Self.count(1)], ["nul\u{0}inside", Self.count(1)], ["Technology", Self.count(1)],
            ["Financial Services", Self.count(2)], ["", Self.count(1)], [.null, Self.count(2)],
        ]
        #expect(rows == expected)
    }
}
