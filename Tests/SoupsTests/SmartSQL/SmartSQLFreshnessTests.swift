import EventJournal
import Foundation
import LosslessJSON
import SyncTesting
import Testing

@testable import Soups

/// Smart queries read the soups as they are now, in one snapshot, on plaintext and encrypted
/// stores alike; observations re-run for the soups a query names.
@Suite struct SmartSQLFreshnessTests {
    static func key() throws -> StoreKey {
        try StoreKey(bytes: [UInt8](repeating: 7, count: StoreKey.byteCount))
    }

    static func fixture(encrypted: Bool) throws -> SmartSQLFixture {
        let fixture = try SmartSQLFixture(encryption: encrypted ? try key() : nil)
        try fixture.loadData()
        return fixture
    }

    @Test(arguments: [false, true]) func seesLocalCreatesUpdatesAndDeletes(encrypted: Bool) throws {
        let fixture = try Self.fixture(encrypted: encrypted)
        let store = fixture.store
        let sql = "select {employees:lastName}, {employees:salary} from {employees} where {employees:deptCode} = 'C00'"
        #expect(try fixture.rows(sql) == [])
        let created = try store.createLocally("employees", ["lastName": "Lucchessi", "deptCode": "C00", "salary": 1])
        #expect(try fixture.rows(sql) == [["Lucchessi", 1]])
        let entryId = try #require(created.entryId)
        try store.updateLocally("employees", entryId: entryId, changes: ["salary": 2])
        #expect(try fixture.rows(sql) == [["Lucchessi", 2]])
        let dirty = "select count(*) from {employees} where {employees:__local__} = 1"
        #expect(try fixture.rows(dirty) == [[1]])
        try store.delete("employees", ids: [entryId])
        #expect(try fixture.rows(sql) == [])
        #expect(try fixture.rows(dirty) == [[0]])
    }

    @Test(arguments: [false, true]) func aJoinAndAGroupByGiveTheSameRowsEncryptedOrNot(encrypted: Bool) throws {
        let fixture = try Self.fixture(encrypted: encrypted)
        let rows = try fixture.rows(
            "select {departments:name}, count(*), sum({employees:salary}) from {employees}, {departments} "
                + "where {employees:deptCode} = {departments:deptCode} group by {departments:name} "
                + "order by {departments:name}")
        #expect(rows == [["R&D", 4, 352_000], ["Sales", 3, 420_000]])
    }

    @Test func anEncryptedStoreWritesNothingInClear() throws {
        let fixture = try Self.fixture(encrypted: true)
        try fixture.createEmployee(#"{"employeeId":"900","motto":"Zanzibar-Quokka-Secret"}"#)
        let rows = try fixture.rows(
            "select {employees:motto} from {employees} where {employees:motto} like '%Quokka%' "
                + "order by {employees:motto}")
        #expect(rows == [["Zanzibar-Quokka-Secret"]])
        let secret = Data("Quokka".utf8)
        let files = FileManager.default.enumerator(atPath: fixture.soups.directory.url.path)
        while let name = files?.nextObject() as? String {
            let path = fixture.soups.directory.url.appendingPathComponent(name).path
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            #expect(data.range(of: secret) == nil, "\(name) holds the secret in clear")
        }
    }

    @Test func aHashedIndexAnswersEqualityAndShowsItsValue() throws {
        let fixture = try SoupFixture("smart-sql-hashed", encryption: try Self.key())
        try fixture.store.registerSoup(
            "people", indexSpecs: [IndexSpec(path: "email", type: .hashed), IndexSpec(path: "name", type: .string)])
        try fixture.store.create(
            "people", [["email": "a@x.org", "name": "Ann"], ["email": "b@x.org", "name": "Bob"]])
        // Enough people that a lookup beats a scan.
        try fixture.store.create("people", (0..<300).map { ["name": .string("Person \($0)")] })
        let spec = QuerySpec.smart(
            sql: "select {people:name}, {people:email} from {people} where {people:email} = ?", args: ["b@x.org"])
        #expect(try fixture.store.query(spec) == [["Bob", "b@x.org"]])
        #expect(try fixture.store.explainSmartQuery(spec).joined().contains("index on email"))
        let ordered = "select {people:email} from {people} order by {people:email} desc limit 2"
        #expect(try fixture.store.query(.smart(sql: ordered)) == [["b@x.org"], ["a@x.org"]])
    }

    @Test func anIndexAddedWithoutReIndexingHoldsNullUntilTheRecordIsSaved() throws {
        let fixture = try Self.fixture(encrypted: false)
        let store = fixture.store
        var specs = try store.indexSpecs(of: "departments")
        specs.append(IndexSpec(path: "code2", type: .string))
        let department = try #require(try store.query(.exact("departments", path: "deptCode", value: "A00")).first)
        var changed = department
        if case .object(var members) = changed {
            members["code2"] = "X"
            changed = .object(members)
        }
        try store.update("departments", changed, entryId: try #require(department.entryId))
        try store.alterSoup("departments", indexSpecs: specs, reIndex: false)
        let sql = "select {departments:code2} from {departments} order by {departments:deptCode}"
        #expect(try fixture.rows(sql) == [[.null], [.null]])
        try store.reIndexSoup("departments", paths: ["code2"])
        #expect(try fixture.rows(sql) == [["X"], [.null]])
    }

    @Test func createdAndLastModifiedDatesAreTheRecordsDates() throws {
        let fixture = try Self.fixture(encrypted: false)
        // Records never updated: created and last modified are the same instant.
        let rows = try fixture.rows(
            "select {employees:_soupCreatedDate}, {employees:_soupLastModifiedDate}, {employees:_soup} "
                + "from {employees} where {employees:lastName} = 'Kwan'")
        let row = try #require(rows.first?.array)
        #expect(row[0] == row[2]["_soupLastModifiedDate"])
        #expect(row[1] == row[2]["_soupLastModifiedDate"])
        let ordered = try fixture.rows(
            "select {employees:lastName} from {employees} order by {employees:_soupCreatedDate} desc, "
                + "{employees:_soupEntryId} desc limit 1")
        #expect(ordered == [["Henderson"]])

        // An update moves the last modification date and keeps the creation date, as
        // SmartStore's `created` column does; a rebuild from the journal gives the same dates.
        let kwan =
            "select {employees:_soupCreatedDate}, {employees:_soupLastModifiedDate}, {employees:_soupEntryId} "
            + "from {employees} where {employees:lastName} = 'Kwan'"
        let entryId = try #require(try fixture.rows(kwan).first?.array?[2].number?.int64Value)
        try fixture.store.updateLocally("employees", entryId: entryId, changes: ["salary": 1])
        let updated = try #require(try fixture.rows(kwan).first?.array)
        #expect(updated[0] == row[0])
        #expect(updated[1] != row[1])
        #expect(try fixture.soups.rebuildMatches())
        #expect(try fixture.rows(kwan).first?.array == updated)
    }

    @Test func anObservedSmartQueryRunsAgainOnlyForTheSoupsItNames() async throws {
        let fixture = try Self.fixture(encrypted: false)
        let store = fixture.store
        try store.registerSoup("other", indexSpecs: [IndexSpec(path: "x", type: .string)])
        let spec = QuerySpec.smart(
            sql: "select count(*) from {employees}, {departments} where {employees:deptCode} = {departments:deptCode}")
        var rows = store.observeQuery(spec).makeAsyncIterator()
        #expect(try await rows.next() == [[7]])
        let evaluations = fixture.soups.journal.observerStatistics.evaluationCount
        try store.create("other", ["x": "1"])
        try store.create("departments", ["deptCode": "C00", "name": "Support"])
        try store.create("employees", ["lastName": "Lucchessi", "deptCode": "C00"])
        var next = try await rows.next()
        if next == [[7]] { next = try await rows.next() }
        #expect(next == [[8]])
        #expect(
            fixture.soups.journal.observerStatistics.evaluationCount <= evaluations + 2,
            "the write to another soup ran the query again")
    }

    @Test func allReadsOfOneQueryShareOneSnapshot() throws {
        let fixture = try Self.fixture(encrypted: false)
        // A query that reads the same soup three ways sees one consistent state.
        let rows = try fixture.rows(
            "select (select count(*) from {employees}), (select count(*) from {employees} e where "
                + "e.{employees:salary} >= 0), (select sum({employees:salary}) from {employees})")
        #expect(rows == [[7, 7, 772_000]])
    }
}
