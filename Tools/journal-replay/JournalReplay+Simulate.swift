import ArgumentParser
import Foundation
import SyncReplay

extension JournalReplay {
    /// Runs a seeded simulation campaign: random sessions with faults, crashes and power losses, invariants
    /// checked after every step; on a failure, the seed and the shortest failing steps found.
    struct Simulate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a seeded simulation with faults, crashes and power losses; exit 1 if an invariant breaks.")

        @Option(help: "The first seed.") var seed: UInt64
        @Option(help: "Steps per seed.") var steps: Int = 200
        @Option(help: "How many seeds, from --seed on.") var seeds: Int = 1
        @Option(help: "At most this many reruns to shorten a failing seed's steps; 0 reports the failure at once.")
        var shrinkAttempts: Int = 200
        @Flag(help: "Sync the accounts soup with MERGE_FIELDS, resolving conflicts (docs/conflicts.md).")
        var mergeFields = false

        func validate() throws {
            guard steps > 0, steps <= 100_000 else { throw ValidationError("--steps must be 1 to 100000") }
            guard seeds > 0, seeds <= 10_000 else { throw ValidationError("--seeds must be 1 to 10000") }
            guard shrinkAttempts >= 0, shrinkAttempts <= 100_000 else {
                throw ValidationError("--shrink-attempts must be 0 to 100000")
            }
        }

        func run() async throws {
            var failed = 0
            for offset in 0..<UInt64(seeds) {
                let seed = seed &+ offset
                let (outcome, shortest) = try await SyncSimulation.campaign(
                    seed: seed, steps: steps, shrinkAttemptsMax: shrinkAttempts, mergeFields: mergeFields)
                let line =
                    "seed \(seed): \(outcome.stepsRun) steps, \(outcome.syncsDone) syncs DONE, "
                    + "\(outcome.syncsFailed) FAILED or STOPPED, \(outcome.crashes) crashes, "
                    + "\(outcome.powerLosses) power losses, \(outcome.entriesCompacted) entries compacted by steps, "
                    + "\(outcome.unownedRecordsCleaned) unowned records cleaned"
                    + (mergeFields ? ", \(outcome.conflictsResolved) conflicts resolved" : "")
                guard let failure = outcome.failure else {
                    print(line + ": every invariant held")
                    continue
                }
                failed += 1
                print(line + ": FAILED \(failure)")
                print(
                    "   shortest failing steps (\(shortest.count)): \(shortest.map(\.description).joined(separator: " "))"
                )
            }
            if failed > 0 { throw ExitStatus.divergence }
        }
    }
}
