import BenchmarkSupport
import Foundation
import SyncTesting

/// The soup workload (``SoupWorkload``: durable inserts, exact lookups, range pages) on every
/// store of one run: SQLite `synchronous = FULL` and SQLCipher in SmartStore's layout, then the
/// journal's soups under each ``StoreConfiguration``, with the goals' ratios from the same run.
///
/// The baselines run first, then the configurations in their order, each in a fresh directory
/// removed once measured.
struct SoupBenchmark {
    var workload = SoupWorkload(recordCount: 100_000, batchSize: 2000, lookupCount: 10_000, rangePageCount: 1000)
    var configurations = StoreConfiguration.allCases
    var runsSQLCipher = true
    var report = Report()

    func run() throws -> SoupFigures {
        report.line(
            "soup of \(workload.recordCount) \(workload.shape.label) (4 indexes), \(workload.batchSize) per transaction, "
                + "durable commits; \(workload.lookupCount) lookups by Id, \(workload.rangePageCount) range pages of "
                + "\(SmartStoreLayout.rangePageSize)")
        var figures = SoupFigures(workload)
        let sqlite = try measureSQLite()
        figures.add(sqlite, insertKey: SoupFigures.sqliteFull, storeKey: SoupFigures.sqlite)
        describe("SQLite, SmartStore layout (GRDB, WAL, synchronous FULL)", sqlite)
        if runsSQLCipher {
            let directory = try TemporaryDirectory("bench-soup-sqlcipher")
            defer { directory.remove() }
            let sqlcipher = try SQLCipherBaselineProcess(workload: workload).run(in: directory.url)
            figures.sqlcipherVersion = sqlcipher.cipherVersion
            figures.add(sqlcipher.figures, insertKey: SoupFigures.sqlcipherFull, storeKey: SoupFigures.sqlcipher)
            describe(
                "SQLCipher \(sqlcipher.cipherVersion), same layout (default cipher settings, WAL, FULL)",
                sqlcipher.figures)
        }
        for configuration in configurations {
            let directory = try TemporaryDirectory("bench-soup-\(configuration.rawValue)")
            defer { directory.remove() }
            let store = try JournalSoupStore(directory: directory.appending("soups"), configuration: configuration)
            let measured = try workload.run(on: store)
            figures.add(measured, insertKey: configuration.rawValue, storeKey: configuration.rawValue)
            describe("soups, \(configuration.label)", measured)
            let parts = try store.storeParts()
            figures.storeParts[configuration.rawValue] = parts
            report.line(
                "  where the bytes are: "
                    + parts.sorted { $0.key < $1.key }.map { "\($0.key) \(DirectorySize.mebibytes($0.value))" }
                    .joined(separator: ", "))
        }
        figures.computeRatios()
        for (name, value) in figures.ratios.sorted(by: { $0.key < $1.key }) {
            report.line(String(format: "%@: %.2f%@", name, value, name.hasSuffix("Percent") ? " %" : "×"))
        }
        return figures
    }

    /// The SQLite baseline, in a directory of its own.
    private func measureSQLite() throws -> SoupWorkloadFigures {
        let directory = try TemporaryDirectory("bench-soup-sqlite")
        defer { directory.remove() }
        let sqlite = try SQLiteSoupBaseline(path: directory.appending("smartstore.sqlite").path, syncsEveryCommit: true)
        return try workload.run(on: sqlite)
    }

    /// Prints one store's figures.
    private func describe(_ label: String, _ figures: SoupWorkloadFigures) {
        report.line(label)
        report.line(
            String(
                format: "  insert %9.0f records/s   store %@   lookup by Id p50 %.1f µs, p99 %.1f µs   "
                    + "range page p50 %.1f µs, p99 %.1f µs",
                figures.insertRecordsPerSecond, DirectorySize.mebibytes(figures.storeBytes), figures.lookupP50Micros,
                figures.lookupP99Micros, figures.rangePageP50Micros, figures.rangePageP99Micros))
    }
}
