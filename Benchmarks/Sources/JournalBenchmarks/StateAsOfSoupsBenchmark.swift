import Determinism
import EventJournal
import Foundation
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
struct StateAsOfSoupsBenchmark {
    var entryCount = 1_000_000
    var recordCount = 10_000
    var queryCount = 20
    /// Run `verify` before the first question; without it (`--cold`) only the checkpoints the
    /// store wrote as it grew exist.
    var verifiesFirst = true

    func run() throws {
        let directory = try TemporaryDirectory("bench-state-soups")
        defer { directory.remove() }
        var options = JournalOptions()
        options.environment.mapSizeBytes = 16 << 30
        options.environment.flushesOnCommit = false
        let clock = ManualWallClock(tick: .milliseconds(1))
        let store = try SyncStore(
            directory: directory.appending("store"), clock: clock, idGenerator: IncrementingIDGenerator(),
            options: options, logger: Logger.discarding)
        try store.soups.registerSoup(
            "accounts", indexSpecs: [IndexSpec(path: "Id", type: .string), IndexSpec(path: "Name", type: .string)])
        let build = try ContinuousClock().measure {
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
        print("state as of a sequence: \(entryCount) entries (\(recordCount) records, then one edit per entry)")
        print("journal built in \(build)")
        let journal = store.journal
        let last = try journal.lastSequence()
        let clockNow = ContinuousClock()
        if verifiesFirst {
            // What `journal-replay verify` does: the full fold, leaving checkpoints behind.
            let verify = try clockNow.measure {
                let report = try journal.verify(checkpointDirectory: journal.defaultCheckpointDirectory)
                precondition(report.isConsistent, "the benchmark journal verifies")
            }
            print("verify (folds everything, writes checkpoints): \(verify)")
        }
        var size = 0
        let first = try clockNow.measure { size = try describe(journal, asOf: last) }
        print("first state call, as of the last entry: \(first), \(size) bytes of JSON")
        var generator = SplitMix64(seed: 5)
        var latencies = LatencySample()
        for _ in 0..<queryCount {
            let sequence = UInt64.random(in: 1...last, using: &generator)
            latencies.record(try clockNow.measure { _ = try describe(journal, asOf: sequence) })
        }
        print(
            "\(queryCount) random sequences afterwards: \(latencies.summary), "
                + "max \(String(format: "%.0f", latencies.percentile(1))) µs")
        print("checkpoints the store wrote: \(try journal.statistics().checkpointSequences.count)")
        let checkpoint = try clockNow.measure { _ = try journal.checkpoint() }
        print("one more checkpoint (compact copy, synced): \(checkpoint)")
        var cpuSeconds = 0.0
        let fold = try clockNow.measure { cpuSeconds = try threadCPUSeconds { try journal.rebuild() } }
        let seconds = Double(fold.components.seconds) + Double(fold.components.attoseconds) / 1e18
        print(
            "fold of all \(last) entries (rebuild in place): \(fold), "
                + "\(Int(Double(last) / seconds)) entries/s; CPU \(String(format: "%.2f", cpuSeconds)) s, "
                + "\(Int(Double(last) / cpuSeconds)) entries per CPU second")
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
