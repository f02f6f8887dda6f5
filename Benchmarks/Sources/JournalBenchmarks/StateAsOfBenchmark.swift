import Determinism
import EventJournal
import Foundation
import Logging
import SyncTesting

/// Measures `Journal.withState(asOf:)` — what `journal-replay state --as-of` runs — on a
/// journal of `entryCount` entries: the first call (which writes the checkpoints) and then
/// seeded random sequences.
struct StateAsOfBenchmark {
    var entryCount = 1_000_000
    var queryCount = 30

    func run() throws {
        let directory = try TemporaryDirectory("bench-state")
        defer { directory.remove() }
        var options = JournalOptions()
        options.environment.mapSizeBytes = 4 << 30
        options.environment.flushesOnCommit = false
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
        let first = try clock.measure {
            _ = try journal.withState(asOf: UInt64(entryCount), checkpointDirectory: checkpoints) { _, sequence in
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
        print(
            "state as of a sequence, journal of \(entryCount) entries, checkpoint every \(Journal.checkpointIntervalDefault)"
        )
        print("first call (folds everything, writes checkpoints): \(first)")
        print(
            "\(queryCount) random sequences afterwards: \(latencies.summary), max \(String(format: "%.0f", latencies.percentile(1))) µs"
        )
    }
}
