import Foundation
import LosslessJSON
import MobileSync
import SalesforceAPI
import SalesforceSimulator
import Testing

/// Faults during sync down end DONE after retries or FAILED with a clear error; nothing
/// committed is lost, and a reSync afterwards leaves exactly the server's records.
@Suite struct SyncDownFaultTests {
    static let queryMorePath = "/services/data/v66.0/query/"

    static func serverIds(_ harness: SyncHarness) async throws -> Set<String> {
        let result = try await harness.client.query("SELECT Id FROM Account")
        return Set(result.records.compactMap { $0["Id"]?.string })
    }

    @Test func transient503sWhilePagingAreRetriedAndTheSyncEndsDone() async throws {
        try await SyncHarness.with(accounts: 450) { harness in
            harness.simulator.setFaultPlan(
                FaultPlan(rules: [FaultRule(method: "GET", path: Self.queryMorePath, status: 503, count: 2)]))
            let final = try await harness.manager.syncDown(
                target: SyncDownEndToEndTests.soqlTarget(maxBatchSize: 200), soupName: SyncHarness.soup)
            #expect(final.progressSummary == "DONE(100,450)")
            #expect(harness.simulator.requestLog().filter { $0["status"]?.number?.int64Value == 503 }.count == 2)
            #expect(try harness.records().count == 450)
        }
    }

    @Test func aDroppedConnectionWhilePagingIsRetriedAndTheSyncEndsDone() async throws {
        try await SyncHarness.with(accounts: 450) { harness in
            harness.simulator.setFaultPlan(
                FaultPlan(rules: [FaultRule(method: "GET", path: Self.queryMorePath, drop: .beforeCommit, count: 1)]))
            let final = try await harness.manager.syncDown(
                target: SyncDownEndToEndTests.soqlTarget(maxBatchSize: 200), soupName: SyncHarness.soup)
            #expect(final.progressSummary == "DONE(100,450)")
            #expect(harness.simulator.requestLog().contains { $0["status"]?.number?.int64Value == 0 })
            #expect(try harness.records().count == 450)
        }
    }

    @Test func persistent503sFailTheSyncKeepTheCommittedPagesAndAReSyncCompletes() async throws {
        try await SyncHarness.with(accounts: 450, retryPolicy: RetryPolicy(attemptCountMax: 2)) { harness in
            harness.simulator.setFaultPlan(
                FaultPlan(rules: [FaultRule(method: "GET", path: Self.queryMorePath, status: 503)]))
            let failed = try await harness.manager.syncDown(
                target: SyncDownEndToEndTests.soqlTarget(maxBatchSize: 200), soupName: SyncHarness.soup, name: "f")
            #expect(failed.status == .failed)
            #expect(failed.progress == 44)
            #expect(failed.error.contains("HTTP 503"), "\(failed.error)")
            #expect(failed.maxTimeStamp == SyncHarness.modified(199), "sorted pages moved the watermark")
            #expect(try harness.records().count == 200)
            harness.simulator.setFaultPlan(.none)
            try harness.simulator.delete(type: "Account", id: SyncHarness.accountId(10))
            try harness.simulator.write(type: "Account", id: SyncHarness.accountId(5), fields: ["Name": "Changed"])
            let done = try await harness.manager.reSync(name: "f")
            #expect(done.status == .done)
            #expect(try await harness.manager.cleanResyncGhosts(name: "f") == 1)
            let local = try harness.recordsById()
            #expect(Set(local.keys) == (try await Self.serverIds(harness)))
            #expect(local[SyncHarness.accountId(5)]?["Name"] == "Changed")
        }
    }

    @Test func anExpiredTokenIsRefreshedAndTheSyncEndsDone() async throws {
        try await SyncHarness.with(accounts: 3) { harness in
            harness.simulator.expireAccessTokens()
            let final = try await harness.manager.syncDown(
                target: SyncDownEndToEndTests.soqlTarget(), soupName: SyncHarness.soup)
            #expect(final.progressSummary == "DONE(100,3)")
            #expect(harness.client.credentials.accessToken != "")
        }
    }

    @Test func aRevokedSessionFailsTheSyncWithAClearError() async throws {
        try await SyncHarness.with(accounts: 3) { harness in
            harness.simulator.revokeRefreshToken()
            let final = try await harness.manager.syncDown(
                target: SyncDownEndToEndTests.soqlTarget(), soupName: SyncHarness.soup, name: "revoked")
            #expect(final.status == .failed)
            #expect(final.error.hasPrefix("SalesforceError(sessionRevoked"), "\(final.error)")
            #expect(try harness.records().isEmpty)
        }
    }
}
