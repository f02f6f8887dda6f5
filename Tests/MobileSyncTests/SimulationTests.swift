import SyncTesting
import Testing

/// The seeded simulation of `SyncTesting`: random interleavings of local and server edits,
/// syncs, faults, process crashes and power losses, with every invariant checked after every step.
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
        #expect(outcome.entriesCompacted > 0, "seed \(seed): no compaction step removed anything")
    }

    /// Every kind of damage a power loss can do, at moments with local changes pending, pages
    /// fetched and uploads done since the last checkpoint.
    @Test func everyKindOfPowerLossDamageIsRecoveredFrom() async throws {
        var steps: [SimulationStep] = []
        for damage in UInt64(0)..<8 {
            steps += [.localCreate, .syncDown, .localUpdate(pick: damage), .syncUp, .serverUpdate(pick: damage)]
            steps += Array(repeating: .localCreate, count: 6) + [.syncDown, .powerLoss(damage: damage), .localCreate]
        }
        let outcome = try await SyncSimulation.run(seed: 5, steps: steps)
        #expect(outcome.failure == nil, "\(outcome.failure ?? "")")
        #expect(outcome.powerLosses == 8)
        #expect(outcome.stepsRun == steps.count)
    }

    @Test func theSeedsOfTheSuiteIncludeCrashesPowerLossesAndCompactions() {
        let steps = Self.seeds.flatMap { SyncSimulation.steps(seed: $0, count: Self.stepsPerSeed) }
        #expect(steps.filter { $0 == .crash }.count >= 40)
        #expect(steps.count { if case .powerLoss = $0 { true } else { false } } >= 40)
        #expect(steps.count { if case .compact = $0 { true } else { false } } >= 20 * 7)
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
