import SyncTesting
import Testing

/// The seeded simulation of `SyncTesting`: random interleavings of local and server edits,
/// syncs, faults and crashes, with every invariant checked after every step.
@Suite struct SimulationTests {
    static let seeds: [UInt64] = Array(1...20)
    static let stepsPerSeed = 200

    @Test(arguments: seeds)
    func invariantsHoldThroughASeededSession(seed: UInt64) async throws {
        let (outcome, shortest) = try await SyncSimulation.campaign(
            seed: seed, steps: Self.stepsPerSeed, shrinkAttemptsMax: 40)
        #expect(
            outcome.failure == nil,
            "seed \(seed): \(outcome.failure ?? ""); shortest failing steps: \(shortest.map(\.description))")
        #expect(outcome.stepsRun == Self.stepsPerSeed)
        #expect(outcome.syncsDone > 0)
    }

    @Test func aSeedReplaysTheSameSession() async throws {
        let steps = SyncSimulation.steps(seed: 99, count: 60)
        #expect(steps == SyncSimulation.steps(seed: 99, count: 60))
        let first = try await SyncSimulation.run(seed: 99, steps: steps)
        let second = try await SyncSimulation.run(seed: 99, steps: steps)
        #expect(first.syncsDone == second.syncsDone)
        #expect(first.syncsFailed == second.syncsFailed)
        #expect(first.failure == second.failure)
    }
}
