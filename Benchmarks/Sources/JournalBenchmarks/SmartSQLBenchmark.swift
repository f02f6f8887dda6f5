import BenchmarkSupport
import Determinism
import EventJournal
import Foundation
import GRDB
import LMDBStore
import Logging
import LosslessJSON
import Soups
import SyncTesting

/// Smart SQL side by side with SmartStore's own layout in SQLite (through GRDB), in one run:
/// the five queries of issue 26 on two soups of `recordCount` records each (`accounts`, with
/// `Id`, `Name`, `Industry` and `AnnualRevenue` indexed and `BillingCity` not; `contacts`, with
/// `Id`, `AccountId` and `LastName` indexed), on plaintext and encrypted journals. The records
/// have `shape` (``SmartSQLRecords``).
///
/// Both sides run the same converted SQL (the journal's soups are `TABLE_1` and `TABLE_2`, as
/// SmartStore would name them), wrapped and decoded as SmartStore does: `SELECT * FROM (…)
/// LIMIT offset, size`, a `soup` column parsed into the record. The first run of each query
/// checks that both sides return the same rows.
struct SmartSQLBenchmark {
    var recordCount = 100_000
    var batchSize = 2000
    /// What the records look like (`--shape`).
    var shape = RecordShape.lorem
    var report = Report()

    /// One of the five queries.
    private struct Query {
        /// The key of its figures in the JSON document.
        var id: String
        var name: String
        var sql: String
        var pageSize: Int
        var repeatCount: Int
        var isIndexed: Bool
        /// The arguments of run `number`.
        var arguments: (Int) -> [String]
    }

    /// Issue 26's queries, their arguments drawn from `records` so that they hit rows in either shape.
    private func queries(_ records: SmartSQLRecords) -> [Query] {
        [
            Query(
                id: "indexedEquality", name: "indexed equality",
                sql: "select {accounts:_soup} from {accounts} where {accounts:Id} = ?",
                pageSize: 10, repeatCount: 500, isIndexed: true, arguments: { [records.lookupID($0)] }),
            Query(
                id: "orderedRange", name: "indexed range, order by, limit 100",
                sql: "select {accounts:_soup} from {accounts} where {accounts:AnnualRevenue} >= ? "
                    + "order by {accounts:AnnualRevenue} limit 100",
                // Both shapes' revenues are integers in 0..<10,000,000.
                pageSize: 100, repeatCount: 100, isIndexed: true, arguments: { [String($0 * 97_003 % 10_000_000)] }),
            Query(
                id: "groupBy", name: "count(*) group by indexed string",
                sql: "select {accounts:Industry}, count(*) from {accounts} group by {accounts:Industry}",
                pageSize: 100, repeatCount: 10, isIndexed: true, arguments: { _ in [] }),
            Query(
                id: "join", name: "join on indexed fields",
                sql: "select {contacts:LastName}, {accounts:Name} from {contacts}, {accounts} "
                    + "where {contacts:AccountId} = {accounts:Id} and {accounts:Industry} = ?",
                pageSize: QuerySpec.pageSizeMax, repeatCount: 10, isIndexed: true,
                arguments: { [records.industry($0)] }),
            Query(
                id: "scan", name: "filter on a path without index",
                sql: "select {accounts:Id} from {accounts} where {accounts:BillingCity} = ?",
                pageSize: QuerySpec.pageSizeMax, repeatCount: 5, isIndexed: false, arguments: { [records.city($0)] }),
        ]
    }

    // MARK: - Running

    /// Builds the stores, runs every query on each, prints a table and returns the figures.
    func run() throws -> SmartSQLFigures {
        let directory = try TemporaryDirectory("bench-smart-sql")
        defer { directory.remove() }
        // Not `shape.label`: the lorem soups are smart-sql's own records, not `BenchmarkRecords`.
        let kind = shape == .org ? "org-shaped" : "lorem"
        report.line(
            "smart sql: two soups of \(recordCount) \(kind) records; medians; ratio = journal / SmartStore-layout SQLite"
        )
        let records = SmartSQLRecords(shape: shape, count: recordCount)
        let sqlite = try baseline(directory.appending("smartstore.sqlite").path, records.accounts, records.contacts)
        let plain = try journal(directory.appending("plain"), key: nil, records.accounts, records.contacts)
        let key = try StoreKey(bytes: [UInt8](repeating: 0x5A, count: StoreKey.byteCount))
        let encrypted = try journal(directory.appending("encrypted"), key: key, records.accounts, records.contacts)
        var figures = SmartSQLFigures(parameters: SmartSQLFigures.Parameters(records: recordCount, shape: shape))
        for query in queries(records) {
            let converted = try plain.convertSmartSQL(query.sql)
            let expected = try runSQLite(sqlite, converted, query, 0)
            for store in [plain, encrypted] {
                let rows = try runJournal(store, query, 0)
                guard Self.comparable(rows) == Self.comparable(expected) else {
                    throw SoupError(.storage, "\(query.name): the journal's rows differ from SQLite's")
                }
            }
            let figure = SmartSQLFigures.Query(
                id: query.id, query: query.name, isIndexed: query.isIndexed,
                sqliteMicroseconds: try median(query) { try runSQLite(sqlite, converted, query, $0) },
                journalMicroseconds: try median(query) { try runJournal(plain, query, $0) },
                encryptedMicroseconds: try median(query) { try runJournal(encrypted, query, $0) })
            let label = query.name.padding(toLength: 36, withPad: " ", startingAt: 0)
            report.line(
                label
                    + String(
                        format: " SQLite %10.1f µs   journal %10.1f µs (%.2f×)   encrypted %10.1f µs (%.2f×)"
                            + "   rows in the first run: %d",
                        figure.sqliteMicroseconds, figure.journalMicroseconds, figure.ratio,
                        figure.encryptedMicroseconds, figure.encryptedRatio, expected.count))
            figures.add(figure)
        }
        return figures
    }

    /// Rows in a form both sides share: sorted, records without the ids and dates each store
    /// gives them its own way.
    private static func comparable(_ rows: [JSONValue]) -> [String] {
        func stripped(_ value: JSONValue) -> JSONValue {
            switch value {
            case .object(var members):
                members["_soupEntryId"] = nil
                members["_soupLastModifiedDate"] = nil
                return .object(members)
            case .array(let elements): return .array(elements.map(stripped))
            default: return value
            }
        }
        return rows.map { stripped($0).serializedString }.sorted()
    }

    private func median(_ query: Query, _ body: (Int) throws -> [JSONValue]) throws -> Double {
        var sample = LatencySample()
        for number in 0..<query.repeatCount {
            let start = ContinuousClock.now
            _ = try body(number)
            sample.record(ContinuousClock.now - start)
        }
        return sample.percentile(0.5)
    }

    private func runJournal(_ store: SoupStore, _ query: Query, _ number: Int) throws -> [JSONValue] {
        try store.query(
            .smart(sql: query.sql, args: query.arguments(number).map(JSONValue.string), pageSize: query.pageSize))
    }

    /// The converted query on SmartStore's layout, wrapped and decoded as SmartStore does.
    private func runSQLite(_ queue: DatabaseQueue, _ sql: String, _ query: Query, _ number: Int) throws -> [JSONValue] {
        try queue.read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM (\(sql)) LIMIT 0, \(query.pageSize)",
                arguments: StatementArguments(query.arguments(number)))
            return try rows.map { row in
                .array(
                    try zip(row.columnNames, row.databaseValues).map { name, value in
                        switch value.storage {
                        case .null: return .null
                        case .int64(let number): return .number(JSONNumber(number))
                        case .double(let number): return .number(JSONNumber(number))
                        case .string(let text):
                            return name == "soup" ? try JSONValue(parsing: text) : .string(text)
                        case .blob(let data): return .string(String(decoding: data, as: UTF8.self))
                        }
                    })
            }
        }
    }

    // MARK: - Stores

    private func journal(_ url: URL, key: StoreKey?, _ accounts: [JSONValue], _ contacts: [JSONValue]) throws
        -> SoupStore
    {
        var options = JournalOptions()
        options.environment.mapSizeBytes = 8 << 30
        options.encryption = key
        let clock = ManualWallClock(tick: .milliseconds(1))
        let journal = try Journal(
            directory: url, projections: [SoupProjection()], clock: clock, options: options, logger: Logger.discarding)
        let store = SoupStore(journal: journal, clock: clock, idGenerator: IncrementingIDGenerator())
        try store.registerSoup(
            "accounts",
            indexSpecs: ["Id", "Name", "Industry"].map { IndexSpec(path: $0, type: .string) }
                + [IndexSpec(path: "AnnualRevenue", type: .integer)])
        try store.registerSoup(
            "contacts", indexSpecs: ["Id", "AccountId", "LastName"].map { IndexSpec(path: $0, type: .string) })
        for start in stride(from: 0, to: recordCount, by: batchSize) {
            let end = min(start + batchSize, recordCount)
            try store.create("accounts", Array(accounts[start..<end]))
        }
        for start in stride(from: 0, to: recordCount, by: batchSize) {
            let end = min(start + batchSize, recordCount)
            try store.create("contacts", Array(contacts[start..<end]))
        }
        return store
    }

    /// The record's JSON text as SmartStore stores it: with its `_soupEntryId` and
    /// `_soupLastModifiedDate`.
    private static func stamped(_ record: JSONValue, entryId: Int) -> String {
        guard case .object(var members) = record else { return record.serializedString }
        members["_soupEntryId"] = .number(JSONNumber(Int64(entryId)))
        members["_soupLastModifiedDate"] = .number(JSONNumber(Int64(1_700_000_000_000)))
        return JSONValue.object(members).serializedString
    }

    /// SmartStore's tables for the two soups: `TABLE_1` and `TABLE_2`, one indexed column per
    /// index spec, the record as JSON text in `soup`.
    private func baseline(_ path: String, _ accounts: [JSONValue], _ contacts: [JSONValue]) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.journalMode = .wal
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE TABLE_1 (id INTEGER PRIMARY KEY AUTOINCREMENT, soup TEXT, created INTEGER,
                      lastModified INTEGER, TABLE_1_0 TEXT, TABLE_1_1 TEXT, TABLE_1_2 TEXT, TABLE_1_3 INTEGER);
                    CREATE INDEX TABLE_1_0_idx ON TABLE_1 (TABLE_1_0);
                    CREATE INDEX TABLE_1_1_idx ON TABLE_1 (TABLE_1_1);
                    CREATE INDEX TABLE_1_2_idx ON TABLE_1 (TABLE_1_2);
                    CREATE INDEX TABLE_1_3_idx ON TABLE_1 (TABLE_1_3);
                    CREATE TABLE TABLE_2 (id INTEGER PRIMARY KEY AUTOINCREMENT, soup TEXT, created INTEGER,
                      lastModified INTEGER, TABLE_2_0 TEXT, TABLE_2_1 TEXT, TABLE_2_2 TEXT);
                    CREATE INDEX TABLE_2_0_idx ON TABLE_2 (TABLE_2_0);
                    CREATE INDEX TABLE_2_1_idx ON TABLE_2 (TABLE_2_1);
                    CREATE INDEX TABLE_2_2_idx ON TABLE_2 (TABLE_2_2);
                    """)
            try Self.insert(accounts, into: "TABLE_1", paths: ["Id", "Name", "Industry", "AnnualRevenue"], db)
            try Self.insert(contacts, into: "TABLE_2", paths: ["Id", "AccountId", "LastName"], db)
        }
        return queue
    }

    /// Inserts `records` into SmartStore's table `table`, whose index columns hold `paths` in order
    /// (text, or integers for numbers).
    private static func insert(_ records: [JSONValue], into table: String, paths: [String], _ db: GRDB.Database) throws
    {
        let columns = paths.indices.map { "\(table)_\($0)" }.joined(separator: ", ")
        let marks = Array(repeating: "?", count: paths.count).joined(separator: ", ")
        let statement = try db.makeStatement(
            sql: "INSERT INTO \(table) (soup, created, lastModified, \(columns)) VALUES (?, 1, 1, \(marks))")
        for (number, record) in records.enumerated() {
            let values = paths.map { path -> (any DatabaseValueConvertible)? in
                if let text = record[path]?.string { return text }
                return record[path]?.number?.int64Value
            }
            try statement.execute(arguments: StatementArguments([stamped(record, entryId: number + 1)] + values))
        }
    }
}
