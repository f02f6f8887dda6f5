import Determinism
import Foundation
import LosslessJSON
import MobileSync
import SmartStoreImport
import Soups
import SyncTesting
import Testing

/// Every kind of query answers on the imported store as SmartStore's SQL answers on the file.
@Suite struct SmartStoreQueryParityTests {
    /// A query spec and the SQL SmartStore runs for it on the sample's `accounts` (TABLE_1, whose
    /// columns are `TABLE_1_<n>` for the n-th index spec).
    static let cases: [(spec: QuerySpec, sql: String)] = [
        (
            .exact("accounts", path: "Id", value: .string(SmartStoreSample.updated), orderPath: "_soupEntryId"),
            "SELECT soup FROM TABLE_1 WHERE TABLE_1_0 = '\(SmartStoreSample.updated)' ORDER BY id"
        ),
        (
            .range("accounts", path: "NumberOfEmployees", from: 10, to: nil, orderPath: "_soupEntryId"),
            "SELECT soup FROM TABLE_1 WHERE TABLE_1_2 >= 10 ORDER BY id"
        ),
        (
            .range("accounts", path: "AnnualRevenue", from: 1000.0, to: 2000.0, orderPath: "_soupEntryId"),
            "SELECT soup FROM TABLE_1 WHERE TABLE_1_3 >= 1000.0 AND TABLE_1_3 <= 2000.0 ORDER BY id"
        ),
        (
            .like("accounts", path: "Id", pattern: "001%", orderPath: "_soupEntryId"),
            "SELECT soup FROM TABLE_1 WHERE TABLE_1_0 LIKE '001%' ORDER BY id"
        ),
        (
            .exact("accounts", path: "BillingAddress.City", value: "Lyon", orderPath: "_soupEntryId"),
            "SELECT soup FROM TABLE_1 WHERE json_extract(soup, '$.BillingAddress.City') = 'Lyon' ORDER BY id"
        ),
        (
            .match("accounts", path: "Name", expression: "locally", orderPath: "_soupEntryId"),
            "SELECT soup FROM TABLE_1 WHERE id IN (SELECT rowid FROM TABLE_1_fts WHERE TABLE_1_fts MATCH 'locally') "
                + "ORDER BY id"
        ),
        (
            .exact("accounts", path: "__local__", value: "true", orderPath: "_soupEntryId"),
            "SELECT soup FROM TABLE_1 WHERE TABLE_1_5 = 'true' ORDER BY id"
        ),
        (
            .all("accounts", orderPath: "Id", order: .descending),
            "SELECT soup FROM TABLE_1 ORDER BY TABLE_1_0 DESC"
        ),
    ]

    @Test(arguments: 0..<cases.count)
    func aQueryAnswersAsSmartStoreDoes(case number: Int) throws {
        let directory = try TemporaryDirectory("smartstore-parity")
        defer { directory.remove() }
        let sample = try SmartStoreSample(url: directory.appending("smartstore.db"))
        let store = try SyncStore(
            directory: directory.appending("store"), clock: SmartStoreImportTests.clock, logger: .discarding)
        try store.importSmartStore(try SmartStoreDatabase(contentsOf: sample.url))
        let fixture = try SmartStoreFixture(reopening: sample.url)
        defer { fixture.close() }

        let (spec, sql) = Self.cases[number]
        var paged = spec
        paged.pageSize = 100
        let expected = try fixture.rows(sql).map { row in try JSONValue(parsing: row.first?.string ?? "") }
        #expect(!expected.isEmpty)
        #expect(try store.soups.query(paged) == expected, "\(sql)")
    }

    @Test func smartSQLCountsAndDatesAnswerAsSmartStoreDoes() throws {
        let directory = try TemporaryDirectory("smartstore-parity-sql")
        defer { directory.remove() }
        let sample = try SmartStoreSample(url: directory.appending("smartstore.db"))
        let store = try SyncStore(
            directory: directory.appending("store"), clock: SmartStoreImportTests.clock, logger: .discarding)
        try store.importSmartStore(try SmartStoreDatabase(contentsOf: sample.url))
        let fixture = try SmartStoreFixture(reopening: sample.url)
        defer { fixture.close() }

        let ours = try store.soups.query(
            .smart(
                sql: "SELECT {accounts:Id}, {accounts:_soupCreatedDate}, {accounts:_soupLastModifiedDate} "
                    + "FROM {accounts} WHERE {accounts:_soupCreatedDate} < 5000 ORDER BY {accounts:_soupEntryId}",
                pageSize: 100), args: [])
        let theirs = try fixture.rows(
            "SELECT TABLE_1_0, created, lastModified FROM TABLE_1 WHERE created < 5000 ORDER BY id")
        #expect(ours == theirs.map { JSONValue.array($0) })
        #expect(!theirs.isEmpty)
    }
}
