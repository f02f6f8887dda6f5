import BenchmarkSupport
import Foundation

/// Runs the soup workload on SQLCipher in the `sqlcipher-baseline` child process and reads its
/// figures back.
///
/// A child, because SQLCipher exports the same `sqlite3_*` symbols as the SQLite GRDB links in
/// this process: linked together, one would silently serve the other's calls.
struct SQLCipherBaselineProcess {
    var workload: SoupWorkload

    /// The child's figures, measured in a database under `directory`.
    /// - Throws: ``BenchmarkFailure`` when the child is missing, fails, or prints something else than its figures.
    func run(in directory: URL) throws -> SQLCipherBaselineOutput {
        let child = Process()
        child.executableURL = try Self.executable()
        child.arguments = [
            "--directory", directory.path, "--records", String(workload.recordCount), "--batch-size",
            String(workload.batchSize), "--lookups", String(workload.lookupCount), "--range-pages",
            String(workload.rangePageCount), "--shape", workload.shape.rawValue,
        ]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        // Read before waiting: a child blocked on a full pipe would never exit.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        guard child.terminationReason == .exit, child.terminationStatus == 0 else {
            throw BenchmarkFailure("sqlcipher-baseline ended with status \(child.terminationStatus)")
        }
        do {
            return try JSONDecoder().decode(SQLCipherBaselineOutput.self, from: data)
        } catch {
            throw BenchmarkFailure("sqlcipher-baseline printed no figures: \(String(decoding: data, as: UTF8.self))")
        }
    }

    /// The child beside this executable: SwiftPM builds both products into the same folder.
    static func executable() throws -> URL {
        let own = try OwnExecutable.url()
        let child = own.deletingLastPathComponent().appendingPathComponent("sqlcipher-baseline")
        guard FileManager.default.isExecutableFile(atPath: child.path) else {
            throw BenchmarkFailure(
                "\(child.path) is missing: build the whole benchmark package (swift build -c release "
                    + "--package-path Benchmarks) after Benchmarks/Scripts/ensure-sqlcipher.sh")
        }
        return child
    }
}
