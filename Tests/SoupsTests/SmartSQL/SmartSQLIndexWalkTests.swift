import EventJournal
import LosslessJSON
import Testing

@testable import Soups

/// The index walks against the scan: every query gives the same rows when the soup tables read
/// through their indexes as when they scan their records and leave every constraint to SQLite.
@Suite struct SmartSQLIndexWalkTests {
    /// A soup of 240 records with text, integer and floating indexes, holding values of every
    /// kind SQLite compares differently: numeric text, fractions, huge integers, NULL, missing;
    /// encrypted with `encryption` when it is given.
    static func fixture(encryption: StoreKey? = nil) throws -> SoupFixture {
        let fixture = try SoupFixture("smart-sql-walks", encryption: encryption)
        try fixture.store.registerSoup(
            "items",
            indexSpecs: [
                IndexSpec(path: "name", type: .string), IndexSpec(path: "rank", type: .integer),
                IndexSpec(path: "score", type: .floating),
            ])
        let names: [JSONValue?] = ["a", "b", "c", "5", "05", "é", "", nil, .null, "B"]
        let ranks: [JSONValue?] = [-2, 0, 1, 2, 3, 3, 4.5, "3", nil, 9_223_372_036_854_775_807, .null]
        let scores: [JSONValue?] = [1.5, 1, -0.5, 2, "x", nil, 1e300]
        let records = (0..<240).map { number -> JSONValue in
            var record: [String: JSONValue] = ["n": .number(JSONNumber(Int64(number)))]
            record["name"] = names[number % names.count]
            record["rank"] = ranks[(number / 3) % ranks.count]
            record["score"] = scores[(number * 7) % scores.count]
            return .object(record)
        }
        try fixture.store.create("items", records)
        return fixture
    }

    /// Predicates on each column and operator a walk answers, with operands of every type.
    static let predicates = [
        "{items:name} = 'b'", "{items:name} = 5", "{items:name} = '5'", "{items:name} IS NULL",
        "{items:name} IS NOT NULL", "{items:name} IS 'b'", "{items:name} > 'c'",
        "{items:name} >= 'b' and {items:name} < 'é'", "{items:name} between 'a' and 'c'",
        "{items:name} in ('a', 'c', 'zz')", "{items:name} in (5, 'a')", "{items:name} > 5",
        "{items:name} = 'b' collate nocase", "{items:name} in (select {items:name} from {items} where {items:n} < 9)",
        "{items:rank} = 3", "{items:rank} = 3.0", "{items:rank} = 3.5", "{items:rank} = '3'", "{items:rank} = 'x'",
        "{items:rank} > 2.5", "{items:rank} >= 2.5", "{items:rank} < 2.5", "{items:rank} <= -1.5",
        "{items:rank} > 'x'", "{items:rank} < 'x'", "{items:rank} in (1, 2.0, 2.5, '3', null)",
        "{items:rank} is null", "{items:rank} > 9223372036854775807", "{items:rank} >= 9223372036854775807",
        "{items:rank} > 1e300", "{items:rank} < -1e300", "{items:rank} between 2 and 4", "{items:rank} > ' 2 '",
        "{items:score} = 1.5", "{items:score} = 1", "{items:score} > '1.5'", "{items:score} < 0",
        "{items:score} in (1.5, 2)", "{items:score} >= 1 and {items:score} <= 2", "{items:score} is not null",
        "{items:_soupEntryId} = 3", "{items:_soupEntryId} in (1, 3, 5, 999)",
        "{items:_soupEntryId} > 5 and {items:_soupEntryId} <= 10", "{items:_soupEntryId} = '4'",
        "{items:_soupEntryId} < 2.5", "{items:_soupEntryId} > 'x'", "{items:_soupEntryId} >= -5",
        "{items:_soupEntryId} > 9223372036854775807",
    ]

    /// Orders the walks can give, each ending in `_soupEntryId` so that the rows' order is total.
    static let orders = [
        "{items:_soupEntryId}", "{items:_soupEntryId} desc", "{items:rank}, {items:_soupEntryId}",
        "{items:rank} desc, {items:_soupEntryId} desc", "{items:name} desc, {items:_soupEntryId} desc",
        "{items:score}, {items:_soupEntryId}", "{items:name} collate nocase, {items:_soupEntryId}",
    ]

    /// The rows of `sql` with and without the index walks.
    static func bothWays(_ fixture: SoupFixture, _ sql: String, args: [JSONValue] = []) throws -> (
        indexed: [JSONValue], scanned: [JSONValue]
    ) {
        try fixture.store.read { state in
            let reader = ProjectionSoupReader(state: state)
            let indexed = try SmartQueryEngine(reader: reader).page(
                sql, arguments: args, pageSize: QuerySpec.pageSizeMax, pageIndex: 0)
            let scanned = try SmartQueryEngine(reader: reader, usesIndexes: false).page(
                sql, arguments: args, pageSize: QuerySpec.pageSizeMax, pageIndex: 0)
            return (indexed, scanned)
        }
    }

    @Test func everyPredicateGivesTheRowsOfAScan() throws {
        let fixture = try Self.fixture()
        for predicate in Self.predicates {
            for order in [Self.orders[0], Self.orders[1]] {
                let sql =
                    "select {items:_soupEntryId}, {items:name}, {items:rank}, {items:score} from {items} "
                    + "where \(predicate) order by \(order)"
                let (indexed, scanned) = try Self.bothWays(fixture, sql)
                #expect(indexed == scanned, "\(sql)")
            }
        }
    }

    @Test func everyOrderGivesTheRowsOfASort() throws {
        let fixture = try Self.fixture()
        for order in Self.orders {
            for predicate in ["1", "{items:rank} >= 1", "{items:name} in ('a', 'b')", "{items:name} = 'c'"] {
                for limit in ["", " limit 7", " limit 5 offset 100"] {
                    let sql = "select {items:_soupEntryId} from {items} where \(predicate) order by \(order)\(limit)"
                    let (indexed, scanned) = try Self.bothWays(fixture, sql)
                    #expect(indexed == scanned, "\(sql)")
                }
            }
        }
    }

    @Test func argumentsGiveTheRowsOfAScan() throws {
        let fixture = try Self.fixture()
        let operands: [JSONValue] = ["b", 3, 2.5, "3", .null, true, ["a"]]
        for column in ["name", "rank", "score", "_soupEntryId"] {
            for comparison in ["=", "IS", ">", "<="] {
                for operand in operands {
                    let sql =
                        "select {items:_soupEntryId} from {items} where {items:\(column)} \(comparison) ? "
                        + "order by {items:_soupEntryId}"
                    let (indexed, scanned) = try Self.bothWays(fixture, sql, args: [operand])
                    #expect(indexed == scanned, "\(sql) with \(operand.serializedString)")
                }
            }
        }
    }

    @Test func joinsGiveTheRowsOfAScan() throws {
        let fixture = try Self.fixture()
        let joins = [
            "select a.{items:_soupEntryId}, b.{items:_soupEntryId} from {items} as a, {items} as b "
                + "where a.{items:rank} = b.{items:rank} and a.{items:name} = 'b' order by 1, 2",
            "select a.{items:_soupEntryId}, b.{items:_soupEntryId} from {items} as a join {items} as b "
                + "on b.{items:_soupEntryId} = a.{items:rank} order by 1, 2",
            "select {items:name}, count(*), total({items:rank}) from {items} group by {items:name} order by 1",
            "select distinct {items:rank} from {items} order by 1 desc",
        ]
        for sql in joins {
            let (indexed, scanned) = try Self.bothWays(fixture, sql)
            #expect(indexed == scanned, "\(sql)")
        }
    }

    // MARK: - Plans

    @Test func equalityOnAnIndexedPathWalksTheIndex() throws {
        let fixture = try Self.fixture()
        let plan = try fixture.store.explainSmartQuery(
            .smart(sql: "select {items:_soup} from {items} where {items:name} = ?", args: ["b"]))
        // The plan's number is the connection's (plans are kept across executions): not checked.
        #expect(plan.joined(separator: "\n").contains(":index on name (TABLE_1_0) TABLE_1_0 = ?"))
    }

    @Test func orderByAnIndexedPathNeedsNoSort() throws {
        let fixture = try Self.fixture()
        let plan = try fixture.store.explainSmartQuery(
            .smart(
                sql: "select {items:_soup} from {items} where {items:rank} >= 2 order by {items:rank} limit 100",
                pageSize: 100))
        let text = plan.joined(separator: "\n")
        #expect(text.contains("index on rank (TABLE_1_1) TABLE_1_1 >= ?, ordered"))
        #expect(!text.contains("TEMP B-TREE"))
    }

    @Test func aPathWithoutAnIndexScans() throws {
        let fixture = try Self.fixture()
        let plan = try fixture.store.explainSmartQuery(
            .smart(sql: "select {items:_soup} from {items} where {items:n} = 3"))
        #expect(plan.joined(separator: "\n").contains("records by _soupEntryId"))
    }

    @Test func aJoinLooksUpTheInnerSoupByIndex() throws {
        let fixture = try Self.fixture()
        let plan = try fixture.store.explainSmartQuery(
            .smart(
                sql: "select a.{items:n}, b.{items:n} from {items} as a, {items} as b "
                    + "where a.{items:name} = 'c' and b.{items:rank} = a.{items:rank}"))
        let text = plan.joined(separator: "\n")
        #expect(text.contains("TABLE_1_0 = ?"))
        #expect(text.contains("TABLE_1_1 = ?"))
    }
}
