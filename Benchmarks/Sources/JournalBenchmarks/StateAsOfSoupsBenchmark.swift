import BenchmarkSupport
import Determinism
import EventJournal
import Foundation
import LMDBStore
import Logging
import LosslessJSON
import MobileSync
import Soups
import SyncTesting

/// What `journal-replay state --as-of` does, on a store with every real projection (soups,
/// sync states, pending uploads): `entryCount` entries, of which the first create
/// `recordCount` records (100 per entry) and the rest edit one random record each — a long
/// offline session. The store writes its own checkpoints as it grows (the default policy:
/// every 50,000 entries). Each query folds from the nearest checkpoint and describes every
/// projection as JSON, as the tool prints it. Then the whole journal is folded again in place
/// (`Journal.rebuild`): the fold rate of record-edit entries, which bounds every recovery.
///
/// The store keeps all its history (`RetentionPolicy.unlimited`): under the default retention
/// the sequences before the horizon are compacted away ("entry N was compacted away").
struct StateAsOfSoupsBenchmark {
    var entryCount = 1_000_000
    var recordCount = 10_000
    var queryCount = 20
    /// Run `verify` before the first question; without it (`--cold`) only the checkpoints the
    /// store wrote as it grew exist.
    var verifiesFirst = true
    var report = Report()

    func run() throws -> StateAsOfSoupsFigures {
        let directory = try TemporaryDirectory("bench-state-soups")
        defer { directory.remove() }
        var figures = StateAsOfSoupsFigures(
            entries: entryCount, records: recordCount, queries: queryCount, verifiedFirst: verifiesFirst)
        let store = try makeStore(directory)
        let build = try ContinuousClock().measure { try fill(store) }
        figures.buildSeconds = build.inSeconds.rounded(decimals: 2)
        report.line(
            "state as of a sequence: \(entryCount) entries (\(recordCount) records, then one edit per entry); "
                + "history kept (RetentionPolicy.unlimited): every sequence must stay answerable")
        report.line("journal built in \(build)")
        try query(store.journal, into: &figures)
        figures.checkpointsWritten = try store.journal.statistics().checkpointSequences.count
        report.line("checkpoints the store wrote: \(figures.checkpointsWritten)")
        let checkpoint = try ContinuousClock().measure { _ = try store.journal.checkpoint() }
        figures.checkpointMillis = (checkpoint.inSeconds * 1000).rounded(decimals: 1)
        report.line("one more checkpoint (compact copy, synced): \(checkpoint)")
        try fold(store.journal, into: &figures)
        return figures
    }

    private func makeStore(_ directory: TemporaryDirectory) throws -> SyncStore {
        var options = JournalOptions()
        options.environment.mapSizeBytes = 16 << 30
        options.environment.flushesOnCommit = false
        options.retention = .unlimited
        let store = try SyncStore(
            directory: directory.appending("store"), clock: ManualWallClock(tick: .milliseconds(1)),
            idGenerator: IncrementingIDGenerator(), options: options, logger: Logger.discarding)
        try store.soups.registerSoup(
            "accounts", indexSpecs: [IndexSpec(path: "Id", type: .string), IndexSpec(path: "Name", type: .string)])
        return store
    }

    private func fill(_ store: SyncStore) throws {
        for batch in stride(from: 0, to: recordCount, by: 100) {
            _ = try store.soups.create(
                "accounts",
                (batch..<batch + 100).map { number in
                    ["Id": .string("001\(number)"), "Name": .string("Account \(number)"), "__local__": false]
                })
        }
        var generator = SplitMix64(seed: 3)
        while try store.journal.lastSequence() < UInt64(entryCount) {
            let entryId = Int64.random(in: 1...Int64(recordCount), using: &generator)
            _ = try store.soups.updateLocally(
                "accounts", entryId: entryId, changes: ["Name": .string("Edit \(generator.next() % 1000)")])
        }
    }

    /// `verify` unless cold, the first question, then seeded random ones.
    private func query(_ journal: Journal, into figures: inout StateAsOfSoupsFigures) throws {
        let clock = ContinuousClock()
        let last = try journal.lastSequence()
        if verifiesFirst {
            // What `journal-replay verify` does: the full fold, leaving checkpoints behind.
            let verify = try clock.measure {
                let report = try journal.verify(checkpointDirectory: journal.defaultCheckpointDirectory)
                precondition(report.isConsistent, "the benchmark journal verifies")
            }
            figures.verifySeconds = verify.inSeconds.rounded(decimals: 2)
            report.line("verify (folds everything, writes checkpoints): \(verify)")
        }
        // Not the last entry: the state as of the last one is the live projections, read without a
        // fold. The entry before it is the first question that folds (from a checkpoint if any).
        let firstSequence = max(last - 1, 1)
        var size = 0
        let first = try clock.measure { size = try describe(journal, asOf: firstSequence) }
        figures.firstCallMillis = (first.inSeconds * 1000).rounded(decimals: 1)
        figures.describedBytes = size
        report.line(
            "first state call, as of entry \(firstSequence) (the one before the last): \(first), \(size) bytes of JSON")
        var generator = SplitMix64(seed: 5)
        var latencies = LatencySample()
        for _ in 0..<queryCount {
            let sequence = UInt64.random(in: 1...last, using: &generator)
            latencies.record(try clock.measure { _ = try describe(journal, asOf: sequence) })
        }
        figures.queryP50Millis = (latencies.percentile(0.5) / 1000).rounded(decimals: 2)
        figures.queryP99Millis = (latencies.percentile(0.99) / 1000).rounded(decimals: 2)
        figures.queryMaxMillis = (latencies.percentile(1) / 1000).rounded(decimals: 2)
        report.line(
            "\(queryCount) random sequences afterwards: \(latencies.summary), "
                + "max \(String(format: "%.0f", latencies.percentile(1))) µs")
    }

    /// The rebuild in place of every entry.
    private func fold(_ journal: Journal, into figures: inout StateAsOfSoupsFigures) throws {
        var cpuSeconds = 0.0
        var folded: UInt64 = 0
        let fold = try ContinuousClock().measure {
            cpuSeconds = try processCPUSeconds { try journal.rebuild { done, _ in folded = done } }
        }
        figures.entriesFolded = Int(folded)
        figures.foldEntriesPerSecond = (Double(folded) / fold.inSeconds).rounded(decimals: 0)
        figures.foldEntriesPerCPUSecond = (Double(folded) / cpuSeconds).rounded(decimals: 0)
        report.line(
            "fold of \(folded) entries (rebuild in place): \(fold), \(Int(figures.foldEntriesPerSecond)) entries/s; "
                + "CPU \(String(format: "%.2f", cpuSeconds)) s, \(Int(figures.foldEntriesPerCPUSecond)) entries per "
                + "CPU second")
    }

    /// The tool's work: fold, then describe every projection as one JSON document.
    private func describe(_ journal: Journal, asOf sequence: UInt64) throws -> Int {
        try journal.withState(asOf: sequence) { state, folded in
            var projections: [String: JSONValue] = [:]
            for projection in journal.projections {
                projections[projection.name] = try projection.describeState(in: state, filter: [:])
            }
            let document: JSONValue = [
                "asOf": .number(JSONNumber(Int64(folded))), "projections": .object(projections),
            ]
            return document.serialized().count
        }
    }
}
