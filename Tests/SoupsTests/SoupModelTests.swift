import EventJournal
import Foundation
import Soups
import SyncTesting
import Testing

@Suite struct SoupModelTests {
    /// `SOUPS_SEED=N swift test --filter SoupModelTests` replays a failing run.
    static let seed = ProcessInfo.processInfo.environment["SOUPS_SEED"].flatMap { UInt64($0) } ?? 20_261_123

    @Test func tenThousandRandomOperationsMatchTheModelAndVerify() throws {
        let seed = Self.seed
        let fixture = try SoupFixture("soups-model", tick: .zero, flushesOnCommit: false)
        defer { fixture.remove() }
        var run = SoupModelRun(seed: seed, fixture: fixture)
        do {
            try run.run(operationCount: 10_000, sweepInterval: 1000)
        } catch {
            Issue.record("SOUPS_SEED=\(seed) reproduces this failure: \(error)")
            return
        }
        // Both outcomes must be exercised, or the comparison proves little.
        #expect(run.failedOperationCount > 100, "seed \(seed)")
        #expect(run.queryCount > 30_000, "seed \(seed)")
        let report = try fixture.journal.verify(scratchDirectory: fixture.directory.appending("scratch"))
        #expect(report.isConsistent, "SOUPS_SEED=\(seed): verify found \(report.divergences)")
    }
}
