import BenchmarkSupport
import Determinism
import EventJournal
import Foundation
import LMDBStore
import Logging
import SyncTesting

/// Measures `Journal.withState(asOf:)` — what `journal-replay state --as-of` runs — on a
/// journal of `entryCount` entries: the first call (which writes the checkpoints) and then
/// seeded random sequences.
///
/// The journal keeps all its history (`RetentionPolicy.unlimited`): under the default retention
/// the sequences before the horizon are compacted away and cannot be asked about.
struct StateAsOfBenchmark {
    var entryCount = 1_000_000
    var queryCount = 30
    var report = Report()

    /// The JSON figures of `journal-benchmarks state-as-of` (docs/benchmarks.md).
    struct Figures: Encodable {
        var entries: Int
        var queries: Int
        /// Always `unlimited`: the figures need every entry.
        var retention = StoreConfiguration.unlimited.rawValue
        /// The first question, as of the entry before the last: a fold of the whole journal.
        var firstCallMillis: Double
        var queryP50Millis: Double
        var queryP99Millis: Double
        var queryMaxMillis: Double
    }

    func run() throws -> Figures {
        let directory = try TemporaryDirectory("bench-state")
        defer { directory.remove() }
        var options = JournalOptions()
        options.environment.mapSizeBytes = 4 << 30
        options.environment.flushesOnCommit = false
        options.retention = .unlimited
        let journal = try Journal(
            directory: directory.appending("journal"), projections: [KindCountsProjection()],
            clock: ManualWallClock(tick: .milliseconds(1)), options: options, logger: Logger.discarding)
        var appended = 0
        while appended < entryCount {
            let count = min(10_000, entryCount - appended)
            try journal.append((0..<count).map { CrashWriterPayload.draft(for: UInt64(appended + $0 + 1)) })
            appended += count
        }
        let clock = ContinuousClock()
        let checkpoints = directory.appending("checkpoints")
        // Not the last entry: the state as of the last one is the live projections, read without a
        // fold. The entry before it makes the first call fold the whole journal.
        let firstSequence = UInt64(max(entryCount - 1, 1))
        let first = try clock.measure {
            _ = try journal.withState(asOf: firstSequence, checkpointDirectory: checkpoints) { _, sequence in
                sequence
            }
        }
        var generator = SplitMix64(seed: 5)
        var latencies = LatencySample()
        for _ in 0..<queryCount {
            let sequence = UInt64.random(in: 1...UInt64(entryCount), using: &generator)
            latencies.record(
                try clock.measure {
                    _ = try journal.withState(asOf: sequence, checkpointDirectory: checkpoints) { state, _ in
                        try KindCountsProjection().describeState(in: state, filter: [:])
                    }
                })
        }
        report.line(
            "state as of a sequence, journal of \(entryCount) entries, checkpoint every "
                + "\(Journal.checkpointIntervalDefault); history kept (RetentionPolicy.unlimited): every sequence "
                + "must stay answerable")
        report.line("first call, as of entry \(firstSequence) (folds from the start, writes checkpoints): \(first)")
        report.line(
            "\(queryCount) random sequences afterwards: \(latencies.summary), max "
                + String(format: "%.0f", latencies.percentile(1)) + " µs")
        return Figures(
            entries: entryCount, queries: queryCount, firstCallMillis: (first.inSeconds * 1000).rounded(decimals: 1),
            queryP50Millis: (latencies.percentile(0.5) / 1000).rounded(decimals: 2),
            queryP99Millis: (latencies.percentile(0.99) / 1000).rounded(decimals: 2),
            queryMaxMillis: (latencies.percentile(1) / 1000).rounded(decimals: 2))
    }
}
