import Determinism
import EventJournal
import Foundation
import LMDBStore
import Logging
import SyncTesting

/// Appends `entryCount` entries with `payloadBytes`-byte payloads in transactions of
/// `batchSize`, through the journal with one projection, then puts the same envelope bytes
/// straight into LMDB, and prints both rates and their ratio.
struct AppendBenchmark {
    var entryCount = 1_000_000
    var payloadBytes = 1024
    var batchSize = 2000

    func run() throws {
        let directory = try TemporaryDirectory("bench-append")
        defer { directory.remove() }
        var generator = SplitMix64(seed: 1)
        let payload = (0..<payloadBytes).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var options = JournalOptions()
        options.environment.mapSizeBytes = 4 << 30

        // Runs in order journal, raw, journal: the first run also yields the envelope bytes for
        // the raw run, and comparing the last two keeps either side from paying for a cold disk.
        let first = try Journal(
            directory: directory.appending("journal-1"), projections: [KindCountsProjection()],
            clock: ManualWallClock(tick: .milliseconds(1)), options: options, logger: Logger.discarding)
        let firstSeconds = try appendAll(to: first, payload: payload)
        let envelopes = try storedEnvelopes(of: first)
        let rawSeconds = try appendRaw(envelopes, into: directory.appending("raw"), options: options.environment)
        let second = try Journal(
            directory: directory.appending("journal-2"), projections: [KindCountsProjection()],
            clock: ManualWallClock(tick: .milliseconds(1)), options: options, logger: Logger.discarding)
        let journalSeconds = try appendAll(to: second, payload: payload)
        let journalRate = Double(entryCount) / journalSeconds
        let rawRate = Double(envelopes.count) / rawSeconds
        print("append \(entryCount) entries × \(payloadBytes) B payload, \(batchSize) per transaction, fsync on commit")
        print(
            String(
                format: "journal (1 projection), first run: %10.0f entries/s  (%.2f s)",
                Double(entryCount) / firstSeconds, firstSeconds))
        print(String(format: "raw LMDB puts, same bytes:         %10.0f entries/s  (%.2f s)", rawRate, rawSeconds))
        print(
            String(format: "journal (1 projection):            %10.0f entries/s  (%.2f s)", journalRate, journalSeconds)
        )
        print(String(format: "journal / raw:                     %10.1f %%", 100 * journalRate / rawRate))
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
        let clock = ContinuousClock()
        let elapsed = try clock.measure(body)
        let (seconds, attoseconds) = elapsed.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
