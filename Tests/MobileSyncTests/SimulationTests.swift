import SyncReplay
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

    /// MERGE_FIELDS runs (docs/conflicts.md): Name and Phone edited on both sides, conflicts
    /// resolved after sync downs and at the end. No local field edit disappears unless a
    /// resolution took the server's value, and every conflict lists values the record and the
    /// server really held.
    @Test(arguments: mergeFieldsSeeds)
    func mergeFieldsRunsKeepEveryLocalEditAndListOnlyValuesBothSidesHad(seed: UInt64) async throws {
        let (outcome, shortest) = try await SyncSimulation.campaign(
            seed: seed, steps: Self.stepsPerSeed, shrinkAttemptsMax: 40, mergeFields: true)
        #expect(
            outcome.failure == nil,
            "seed \(seed): \(outcome.failure ?? ""); shortest failing steps: \(shortest.map(\.description))")
        #expect(outcome.stepsRun == Self.stepsPerSeed)
        #expect(outcome.conflictsResolved > 0, "seed \(seed): no conflict was found and resolved")
    }

    static let mergeFieldsSeeds: [UInt64] = [2, 3, 4, 5]

    /// Seed 1057 of the long campaign (`journal-replay simulate --seed 1000 --steps 500 --seeds
    /// 100`) to the `treeUp` that failed (its 307th random step, with the compactions among
    /// them): two local copies of one external id in the parent/children soups, both changed,
    /// whose server records were deleted, are created again as one record holding the newer
    /// change, and the soup keeps one copy (decision 0324).
    @Test func twoChangedCopiesOfOneExternalIdConvergeOnTheNewerChange() async throws {
        let steps = SyncSimulation.steps(seed: 1057, count: 319)
        let outcome = try await SyncSimulation.run(seed: 1057, steps: steps)
        #expect(outcome.failure == nil, "\(outcome.failure ?? "")")
        #expect(outcome.stepsRun == steps.count)
    }

    /// Seed 3078 of the MERGE_FIELDS campaign (`journal-replay simulate --seed 3000 --steps 500
    /// --seeds 100 --merge-fields`) to the sync up that failed (its 114th step): a copy kept
    /// from a deleted-on-server conflict and a fetched copy of the record a tree upsert made
    /// again share one external id; the app then deletes the fetched copy. The sync up sends
    /// both in soup-entry order, as Mobile SDK does: the kept copy's upsert lands on the record
    /// and the newer delete removes it (decision 0324).
    @Test func aKeptCopyUpsertedOntoARecordTheAppDeletedSinceSettlesOnTheNewerDelete() async throws {
        let steps = SyncSimulation.steps(seed: 3078, count: 114)
        let outcome = try await SyncSimulation.run(seed: 3078, steps: steps, mergeFields: true)
        #expect(outcome.failure == nil, "\(outcome.failure ?? "")")
        #expect(outcome.stepsRun == steps.count)
        #expect(outcome.conflictsResolved > 0)
    }

    /// Seed 1057 shrunk: the copy whose server record is gone is changed first, the current copy
    /// later; the current copy's update lands, then the other copy's re-create upserts by the
    /// external id onto the same record and writes the older change over it (Mobile SDK sends
    /// the same requests). A known loss the library does not prevent yet (decision 0324).
    @Test func anOlderChangeOfALostCopyStillOverwritesTheNewerChangeOfTheCurrentCopy() async throws {
        let steps: [SimulationStep] = [
            .localCreate, .localCreate, .syncDown, .crash, .serverDelete(pick: 1_175_144_185_317_434_230),
            .childDelete(pick: 2_980_463_615_449_808_087), .syncUp, .localUpdate(pick: 3_596_410_377_523_142_156),
            .serverUpdate(pick: 9_501_680_328_652_654_770), .serverDelete(pick: 8_432_009_031_514_089_438),
            .localCreate,
            .localUpdate(pick: 17_048_209_794_579_539_971), .localCreate, .syncDown, .localCreate,
            .serverChildUpdate(pick: 14_718_319_789_903_302_758), .serverCreate,
            .serverChildUpdate(pick: 3_254_397_218_699_567_670), .cleanGhosts,
            .localDelete(pick: 11_862_670_637_351_319_414),
            .localCreate, .treeParentDelete(pick: 455_428_183_270_570_590), .syncUp, .localCreate, .syncUp,
            .localDelete(pick: 2_806_662_986_612_309_540), .syncDown,
            .serverLateUpdate(pick: 4_037_272_867_134_123_465),
            .localCreate, .childDelete(pick: 6_862_884_995_124_959_724), .localUpdate(pick: 12_136_844_936_116_107_764),
            .faults(on: true), .serverCreate, .serverUpdate(pick: 18_353_417_967_363_790_154), .localCreate,
            .childCreate(pick: 10_080_514_614_611_260_849), .localDelete(pick: 14_596_392_983_299_725_372), .syncUp,
            .localCreate, .childUpdate(pick: 11_466_046_931_383_891_038),
            .serverUpdate(pick: 10_802_124_510_765_193_355),
            .syncDown, .localCreate, .faults(on: true), .localUpdate(pick: 3_164_581_330_324_142_883), .syncDown,
            .serverDelete(pick: 10_275_987_870_702_140_720), .cleanTreeGhosts, .treeDown,
            .serverChildCreate(pick: 10_818_095_916_416_533_489), .childCreate(pick: 1_572_728_505_148_791_900),
            .treeCreate,
            .treeCreate, .childCreate(pick: 672_815_010_679_333_210),
            .serverLateUpdate(pick: 3_265_726_253_604_987_598),
            .localCreate, .treeParentUpdate(pick: 8_555_543_204_139_533_205), .serverCreate,
            .treeParentUpdate(pick: 6_888_728_388_451_487_306), .treeCreate,
            .serverDelete(pick: 14_911_056_314_105_735_874),
            .localUpdate(pick: 13_961_126_596_958_627_939), .serverCreate, .syncUp, .treeDown, .syncDown, .localCreate,
            .treeCreate, .serverDelete(pick: 13_475_155_071_692_244_419), .syncUp,
            .localUpdate(pick: 12_497_016_887_573_616_246), .cleanTreeGhosts,
            .serverLateUpdate(pick: 14_212_954_786_423_708_456), .treeParentUpdate(pick: 16_518_912_684_483_845_077),
        ]
        let outcome = try await SyncSimulation.run(seed: 1057, steps: steps)
        // Decision 0324's known loss: the newer change of the current copy is lost. This fails
        // once the loss is fixed; then expect no failure here.
        #expect(outcome.failure?.contains("Tree edit") == true, "\(outcome.failure ?? "no failure")")
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
