import EventJournal
import LMDBStore
import LosslessJSON
import Testing

@testable import Soups

/// What a row costs: a query that needs only `_soupEntryId` and index columns opens no record
/// (sealed or compressed values each cost a decryption or a decompression), a connection
/// prepares a statement once, and a kept statement answers from the current snapshot of the
/// current catalog, the same rows as a new one.
@Suite struct SmartSQLRowCostTests {
    static func key() throws -> StoreKey {
        try StoreKey(bytes: [UInt8](repeating: 9, count: StoreKey.byteCount))
    }

    /// Queries that read nothing but `_soupEntryId` and index columns, through each kind of walk.
    static let keyOnlyQueries = [
        "select {items:_soupEntryId} from {items} order by {items:_soupEntryId}",
        "select {items:_soupEntryId} from {items} order by {items:_soupEntryId} desc",
        "select count(*) from {items}",
        "select {items:_soupEntryId}, {items:name} from {items} where {items:_soupEntryId} in (2, 4, 999) order by 1",
        "select {items:_soupEntryId} from {items} where {items:_soupEntryId} = 5",
        "select {items:name}, count(*) from {items} group by {items:name} order by 1",
        "select {items:name}, {items:score} from {items} where {items:rank} >= 2 order by {items:rank}, 1, 2",
        "select {items:name}, {items:rank} from {items} where {items:rank} < 2 order by {items:rank} desc, 1",
        "select a.{items:_soupEntryId}, b.{items:name} from {items} as a, {items} as b "
            + "where a.{items:rank} = b.{items:rank} and a.{items:name} = 'b' order by 1, 2",
    ]

    /// The rows of `sql` read through `reader`, with the index walks or without them.
    static func rows(_ reader: any SoupReader, _ sql: String, usesIndexes: Bool = true) throws -> [JSONValue] {
        try SmartQueryEngine(reader: reader, usesIndexes: usesIndexes).page(
            sql, arguments: [], pageSize: QuerySpec.pageSizeMax, pageIndex: 0)
    }

    @Test(arguments: [false, true]) func aQueryOfIndexColumnsOnlyOpensNoRecord(encrypted: Bool) throws {
        let fixture = try SmartSQLIndexWalkTests.fixture(encryption: encrypted ? Self.key() : nil)
        try fixture.store.read { state in
            for sql in Self.keyOnlyQueries {
                let counting = CountingSoupReader(ProjectionSoupReader(state: state))
                let rows = try Self.rows(counting, sql)
                #expect(rows == (try Self.rows(ProjectionSoupReader(state: state), sql, usesIndexes: false)), "\(sql)")
                #expect(!rows.isEmpty, "\(sql)")
                #expect(counting.recordsOpened == 0, "\(sql) opened \(counting.recordsOpened) records")
            }
        }
    }

    /// Descending walks of the records' keys and of an index, reading only `_soupEntryId` and
    /// index columns.
    static let descendingKeyQueries = [
        "select {items:_soupEntryId} from {items} order by {items:_soupEntryId} desc",
        "select {items:_soupEntryId} from {items} where {items:_soupEntryId} between 5 and 20 "
            + "order by {items:_soupEntryId} desc",
        "select {items:name}, {items:_soupEntryId} from {items} order by {items:name} desc",
        "select {items:rank}, {items:name} from {items} where {items:rank} < 3 order by {items:rank} desc",
        "select {items:score}, count(*) from {items} group by {items:score} order by {items:score} desc",
    ]

    /// A descending walk reads keys alone, as an ascending one does: with every index value and
    /// every record damaged (so that opening one, or checking its seal, fails), the queries give
    /// the rows they gave before.
    @Test(arguments: [false, true]) func aDescendingWalkOpensNoIndexValueNorRecord(encrypted: Bool) throws {
        let fixture = try SmartSQLIndexWalkTests.fixture(encryption: encrypted ? Self.key() : nil)
        let before = try fixture.store.read { state in
            try Self.descendingKeyQueries.map { try Self.rows(ProjectionSoupReader(state: state), $0) }
        }
        for sql in Self.descendingKeyQueries.dropFirst(2) {
            #expect(try fixture.store.explainSmartQuery(.smart(sql: sql)).joined().contains("index on"), "\(sql)")
        }
        let environment = fixture.journal.projectionEnvironment
        for name in ["soups.index", "soups.records"] {
            let database = try environment.database(named: name).unsealed
            try environment.write { transaction in
                var keys: [[UInt8]] = []
                try transaction.withCursor(database) { cursor in
                    try cursor.forEachKeyInPlace { key in
                        keys.append(Array(key))
                        return true
                    }
                }
                for key in keys { try transaction.put(database, key: key, value: [0xEE, 0xEE, 0xEE]) }
            }
        }
        try fixture.store.read { state in
            for (sql, rows) in zip(Self.descendingKeyQueries, before) {
                let counting = CountingSoupReader(ProjectionSoupReader(state: state))
                let read = try Self.rows(counting, sql)
                #expect(read == rows, "\(sql)")
                #expect(!rows.isEmpty, "\(sql)")
                #expect(counting.recordsOpened == 0, "\(sql) opened \(counting.recordsOpened) records")
            }
        }
    }

    @Test func aQueryOfTheRecordsStillOpensThem() throws {
        let fixture = try SmartSQLIndexWalkTests.fixture()
        try fixture.store.read { state in
            for sql in [
                "select {items:_soup} from {items} where {items:rank} >= 2 order by {items:rank}, {items:_soupEntryId}",
                "select {items:n} from {items} order by {items:_soupEntryId}",
                "select {items:_soupEntryId}, {items:_soupLastModifiedDate} from {items} order by 1",
            ] {
                let counting = CountingSoupReader(ProjectionSoupReader(state: state))
                let rows = try Self.rows(counting, sql)
                #expect(rows == (try Self.rows(ProjectionSoupReader(state: state), sql, usesIndexes: false)), "\(sql)")
                #expect(counting.recordsOpened > 0, "\(sql)")
            }
        }
    }

    @Test func aRowDecodesItsIndexValuesOnce() throws {
        let fixture = try SmartSQLIndexWalkTests.fixture()
        try fixture.store.read { state in
            let counting = CountingSoupReader(ProjectionSoupReader(state: state))
            // Walks `_soupEntryId`: both index columns come from one decoding of each row's keys.
            let rows = try Self.rows(
                counting, "select {items:name}, {items:rank}, {items:score} from {items} order by {items:_soupEntryId}")
            #expect(rows.count == 240)
            #expect(counting.indexValueReads == 240)
        }
    }

    @Test func aHashedIndexOpensTheRecordOnlyWhenItsColumnIsRead() throws {
        // A hashed index needs an encrypted store (its digests are keyed).
        let fixture = try SoupFixture("smart-sql-hashed", encryption: Self.key())
        try fixture.store.registerSoup(
            "people", indexSpecs: [IndexSpec(path: "email", type: .hashed), IndexSpec(path: "city", type: .string)])
        try fixture.store.create(
            "people", [["email": "a@x.org", "city": "Oslo"], ["email": "b@x.org", "city": "Rome"]])
        try fixture.store.read { state in
            let reader = ProjectionSoupReader(state: state)
            let soup = try #require(try reader.soup(named: "people"))
            let email = try #require(soup.index(on: "email")).number
            let city = try #require(soup.index(on: "city")).number
            // A hashed index's value comes from the record: asked for the city alone, the
            // reader gives the city alone, without opening the record for the email.
            #expect(try reader.indexedValues(of: soup, entryId: 1, only: [city]) == [city: .text("Oslo")])
            #expect(
                try reader.indexedValues(of: soup, entryId: 1, only: nil) == [
                    city: .text("Oslo"), email: .text("a@x.org"),
                ])
            let counting = CountingSoupReader(reader)
            let rows = try Self.rows(counting, "select {people:city} from {people} order by {people:_soupEntryId}")
            #expect(rows == [["Oslo"], ["Rome"]])
            #expect(counting.recordsOpened == 0)
            #expect(counting.indexesAskedFor.allSatisfy { $0?.contains(email) == false })
            let emails = try Self.rows(reader, "select {people:email} from {people} order by {people:_soupEntryId}")
            #expect(emails == [["a@x.org"], ["b@x.org"]])
        }
    }

    // MARK: - Kept statements

    @Test func aConnectionPreparesARepeatedStatementOnce() throws {
        let fixture = try SmartSQLIndexWalkTests.fixture()
        let sql = "select {items:_soupEntryId} from {items} where {items:name} = ? order by 1"
        try fixture.store.read { state in
            let reader = ProjectionSoupReader(state: state)
            let soups = try reader.soups()
            let converted = try SmartSQLConverter(soups: soups).convert(sql)
            try SmartSQLConnection.withConnection(reader: reader, soups: soups) { connection in
                // The pooled connection may have prepared it already, for another test.
                let before = connection.preparationCount
                let first = try connection.rows(converted, arguments: ["b"])
                let second = try connection.rows(converted, arguments: ["c"])
                let again = try connection.rows(converted, arguments: ["b"])
                #expect(connection.preparationCount - before <= 1)
                #expect(first == again)
                #expect(first != second)
                #expect(!first.isEmpty)
            }
        }
    }

    @Test(arguments: [false, true]) func aKeptStatementAnswersFromTheCurrentSnapshot(encrypted: Bool) throws {
        let fixture = try SmartSQLIndexWalkTests.fixture(encryption: encrypted ? Self.key() : nil)
        let store = fixture.store
        let spec = QuerySpec.smart(
            sql: "select {items:_soupEntryId}, {items:rank} from {items} where {items:name} = 'zz' order by 1")
        #expect(try store.query(spec) == [])
        let created = try store.create("items", ["name": "zz", "rank": 7])
        let entryId = try #require(created.entryId)
        #expect(try store.query(spec) == [[.number(JSONNumber(entryId)), 7]])
        try store.update("items", ["name": "zz", "rank": 8], entryId: entryId)
        #expect(try store.query(spec) == [[.number(JSONNumber(entryId)), 8]])
        try store.delete("items", ids: [entryId])
        #expect(try store.query(spec) == [])
    }

    @Test func aKeptStatementFollowsAlterSoup() throws {
        let fixture = try SmartSQLIndexWalkTests.fixture()
        let store = fixture.store
        let byRank = QuerySpec.smart(sql: "select count(*) from {items} where {items:n} < 10")
        #expect(try store.query(byRank) == [[10]])
        // `n` gains an index: the same smart query now converts to its column.
        try store.alterSoup(
            "items",
            indexSpecs: [
                IndexSpec(path: "name", type: .string), IndexSpec(path: "rank", type: .integer),
                IndexSpec(path: "score", type: .floating), IndexSpec(path: "n", type: .integer),
            ], reIndex: true)
        #expect(try store.query(byRank) == [[10]])
        #expect(try store.explainSmartQuery(byRank).joined(separator: "\n").contains("index on n"))
        // Without re-indexing, a new index holds NULL until each record is saved again.
        try store.alterSoup(
            "items",
            indexSpecs: [IndexSpec(path: "name", type: .string), IndexSpec(path: "n", type: .string)], reIndex: false)
        #expect(try store.query(byRank) == [[0]])
    }

    @Test func aKeptStatementFollowsADroppedAndRegisteredSoup() throws {
        let fixture = try SmartSQLIndexWalkTests.fixture()
        let store = fixture.store
        let spec = QuerySpec.smart(sql: "select count(*) from {items} where {items:name} = 'b'")
        #expect(try store.query(spec) == [[24]])
        try store.dropSoup("items")
        try store.registerSoup("items", indexSpecs: [IndexSpec(path: "name", type: .string)])
        #expect(try store.query(spec) == [[0]])
        try store.create("items", ["name": "b"])
        #expect(try store.query(spec) == [[1]])
        try store.registerSoup("others", indexSpecs: [IndexSpec(path: "name", type: .string)])
        try store.create("others", ["name": "b"])
        #expect(try store.query(.smart(sql: "select count(*) from {others} where {others:name} = 'b'")) == [[1]])
    }

    @Test func aStatementPlannedForAnEmptySoupIsPlannedAgainOnceItFills() throws {
        let fixture = try SoupFixture("smart-sql-growth")
        let store = fixture.store
        try store.registerSoup("items", indexSpecs: [IndexSpec(path: "name", type: .string)])
        let spec = QuerySpec.smart(sql: "select {items:_soupEntryId} from {items} where {items:name} = 'n7'")
        let empty = try store.explainSmartQuery(spec).joined(separator: "\n")
        #expect(empty.contains("records by _soupEntryId"))
        #expect(try store.query(spec) == [])
        try store.create("items", (0..<2_000).map { ["name": .string("n\($0)")] })
        let full = try store.explainSmartQuery(spec).joined(separator: "\n")
        #expect(full.contains("index on name"))
        #expect(try store.query(spec).count == 1)
    }
}
