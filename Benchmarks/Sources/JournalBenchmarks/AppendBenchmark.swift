import BenchmarkSupport
import Determinism
import EventJournal
import Foundation
import LMDBStore
import Logging
import SyncTesting

/// Appends `entryCount` entries with `payloadBytes`-byte payloads in transactions of
/// `batchSize` through the journal with one projection, then puts the same envelope bytes
/// straight into LMDB, then appends again under each ``StoreConfiguration``, and prints the
/// rates and each one's ratio to the raw rate.
///
/// The first journal run keeps all history, plaintext: it warms the disk and yields the envelope
/// bytes of the raw run. Under the default retention the journal compacts as it appends, past
/// 8 MiB of entries: that is part of what the default costs.
struct AppendBenchmark {
    var entryCount = 1_000_000
    var payloadBytes = 1024
    var batchSize = 2000
    var configurations = StoreConfiguration.allCases
    var report = Report()

    /// The JSON figures of `journal-benchmarks append` (docs/benchmarks.md).
    struct Figures: Encodable {
        var entries: Int
        var payloadBytes: Int
        var batchSize: Int
        /// Keyed by configuration, `unlimitedFirstRun` and `raw` (LMDB puts of the same bytes).
        var entriesPerSecond: [String: Double] = [:]
        /// Each configuration's rate over the raw rate, in percent.
        var journalOverRawPercent: [String: Double] = [:]
    }

    func run() throws -> Figures {
        let directory = try TemporaryDirectory("bench-append")
        defer { directory.remove() }
        var generator = SplitMix64(seed: 1)
        let payload = (0..<payloadBytes).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var options = JournalOptions()
        options.environment.mapSizeBytes = 4 << 30
        var figures = Figures(entries: entryCount, payloadBytes: payloadBytes, batchSize: batchSize)
        report.line(
            "append \(entryCount) entries × \(payloadBytes) B payload, \(batchSize) per transaction, fsync on commit")

        let first = try Journal(
            directory: directory.appending("journal-first"), projections: [KindCountsProjection()],
            clock: ManualWallClock(tick: .milliseconds(1)),
            options: try StoreConfiguration.unlimited.applied(to: options), logger: Logger.discarding)
        let firstSeconds = try appendAll(to: first, payload: payload)
        let envelopes = try storedEnvelopes(of: first)
        let rawSeconds = try appendRaw(envelopes, into: directory.appending("raw"), options: options.environment)
        let rawRate = Double(envelopes.count) / rawSeconds
        figures.entriesPerSecond["unlimitedFirstRun"] = (Double(entryCount) / firstSeconds).rounded(decimals: 0)
        figures.entriesPerSecond["raw"] = rawRate.rounded(decimals: 0)
        report.line(
            String(
                format: "journal (1 projection), unlimited history, first run: %10.0f entries/s  (%.2f s)",
                Double(entryCount) / firstSeconds, firstSeconds))
        report.line(
            String(format: "raw LMDB puts, same bytes:          %10.0f entries/s  (%.2f s)", rawRate, rawSeconds))
        for configuration in configurations {
            // Each journal removed once measured: a million 1 KB entries take a gigabyte.
            let own = try TemporaryDirectory("bench-append-\(configuration.rawValue)")
            defer { own.remove() }
            let journal = try Journal(
                directory: own.appending("journal"),
                projections: [KindCountsProjection()], clock: ManualWallClock(tick: .milliseconds(1)),
                options: try configuration.applied(to: options), logger: Logger.discarding)
            let seconds = try appendAll(to: journal, payload: payload)
            let rate = Double(entryCount) / seconds
            figures.entriesPerSecond[configuration.rawValue] = rate.rounded(decimals: 0)
            figures.journalOverRawPercent[configuration.rawValue] = (100 * rate / rawRate).rounded(decimals: 1)
            report.line(
                String(
                    format: "journal, %@: %10.0f entries/s  (%.2f s), %.1f %% of raw", configuration.label, rate,
                    seconds, 100 * rate / rawRate))
        }
        return figures
    }

    private func appendAll(to journal: Journal, payload: [UInt8]) throws -> Double {
        let kinds: [JournalEntry.Kind] = ["bench.a", "bench.b", "bench.c", "bench.d"]
        return try measure {
            var appended = 0
            while appended < entryCount {
                let count = min(batchSize, entryCount - appended)
                try journal.write { writer in
                    for index in 0..<count {
                        try writer.append(
                            JournalEntry.Draft(
                                kind: kinds[(appended + index) & 3], header: ["i": .integer(Int64(appended + index))],
                                payload: payload))
                    }
                }
                appended += count
            }
        }
    }

    /// The raw run stores the very bytes the journal stored, so both write the same volume.
    private func storedEnvelopes(of journal: Journal) throws -> [[UInt8]] {
        let entries = try journal.journalEnvironment.database(named: "journal.entries")
        return try journal.journalEnvironment.read { transaction in
            try transaction.withCursor(entries) { cursor in
                var values: [[UInt8]] = []
                values.reserveCapacity(entryCount)
                try cursor.forEach { _, value in
                    values.append(value)
                    return true
                }
                return values
            }
        }
    }

    private func appendRaw(_ envelopes: [[UInt8]], into directory: URL, options: EnvironmentOptions) throws -> Double {
        let raw = try Environment(directory: directory, options: options)
        let table = try raw.database(named: "raw")
        return try measure {
            var written = 0
            while written < envelopes.count {
                let count = min(batchSize, envelopes.count - written)
                try raw.write { transaction in
                    for index in written..<written + count {
                        var key: [UInt8] = []
                        withUnsafeBytes(of: UInt64(index + 1).bigEndian) { key.append(contentsOf: $0) }
                        try transaction.put(table, key: key, value: envelopes[index], options: .append)
                    }
                }
                written += count
            }
        }
    }

    private func measure(_ body: () throws -> Void) throws -> Double {
        try ContinuousClock().measure(body).inSeconds
    }
}
