import ArgumentParser
import BenchmarkSupport
import CSQLCipher
import Foundation

/// The soup workload on SQLCipher, in a process of its own, printing its figures as one JSON
/// document (``SQLCipherBaselineOutput``) on standard output.
///
/// `journal-benchmarks soup` starts it: SQLCipher exports the same `sqlite3_*` symbols as the
/// SQLite that GRDB links, so the two baselines cannot share a binary.
@main
struct SQLCipherBaseline: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sqlcipher-baseline",
        abstract: "SmartStore's layout in SQLCipher: the soup benchmark's encrypted baseline (JSON on stdout).",
        discussion: "Started by `journal-benchmarks soup`; run by hand only to check SQLCipher alone.")

    @Option(help: "The directory to create the database in (it must exist).")
    var directory: String

    @Option(help: "Records to insert.")
    var records = 100_000

    @Option(help: "Records per transaction.")
    var batchSize = 2000

    @Option(help: "Exact lookups by Id.")
    var lookups = 10_000

    @Option(help: "Range pages of 100 on AnnualRevenue.")
    var rangePages = 1000

    @OptionGroup var recordShape: ShapeOptions

    func validate() throws {
        guard records > 0, batchSize > 0, lookups >= 0, rangePages >= 0 else {
            throw ValidationError(
                "--records and --batch-size must be positive, --lookups and --range-pages not negative")
        }
    }

    func run() throws {
        let store = try SQLCipherSoupStore(
            path: URL(fileURLWithPath: directory).appendingPathComponent("smartstore.sqlcipher").path,
            passphrase: Self.randomPassphrase())
        let workload = SoupWorkload(
            recordCount: records, batchSize: batchSize, lookupCount: lookups, rangePageCount: rangePages,
            shape: recordShape.shape)
        let figures = try workload.run(on: store)
        guard try store.fileIsEncrypted() else {
            throw SQLCipherError(code: SQLITE_MISUSE, message: "the SQLCipher database was written in plaintext")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let output = SQLCipherBaselineOutput(cipherVersion: store.database.cipherVersion, figures: figures)
        FileHandle.standardOutput.write(try encoder.encode(output) + Data("\n".utf8))
    }

    /// A new passphrase per run, 32 random bytes as hexadecimal digits, as an app's would be.
    private static func randomPassphrase() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
        }
        .joined()
    }
}
