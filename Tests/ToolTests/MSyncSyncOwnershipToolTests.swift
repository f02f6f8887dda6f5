import Determinism
import Foundation
import LosslessJSON
import SalesforceSimulator
import SyncTesting
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A sync belongs to the process running it: two `msync` processes on one store, the first held
/// mid-sync by the simulator (its query's answer waits on a ``HeldClock``), the second asking
/// about, re-running, cleaning or deleting the same sync.
@Suite(.serialized) struct MSyncSyncOwnershipToolTests {
    let msync: BuiltProduct
    let replay: BuiltProduct
    let directory: TemporaryDirectory

    init() throws {
        msync = try BuiltProduct("msync")
        replay = try BuiltProduct("journal-replay")
        directory = try TemporaryDirectory("msync-ownership")
    }

    @Test func aSyncRunningInAnotherProcessReadsRunningAndIsRefusedUntilItEnds() async throws {
        let org = try await HeldOrg.start()
        defer { directory.remove() }
        try await setUp(org)

        let child = try await startHeldResync(org)
        defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }
        let status = try await run(["status", "busy", "--json"], org)
        #expect(
            try JSONValue(parsing: status.standardOutput)["status"] == "RUNNING",
            "\(status.standardOutput) \(status.standardError); the child is running: \(child.isRunning)")
        #expect(try await run(["status"], org).standardOutput.contains("busy syncDown accounts RUNNING"))
        let refused = try await run(["resync", "busy"], org, expecting: 2)
        #expect(refused.standardError == "msync: Cannot run runSync 1 - sync is still running in another process\n")
        try await run(["clean-ghosts", "busy"], org, expecting: 2)
        try await run(["delete-sync", "busy"], org, expecting: 2)
        #expect(try await journaledStatuses() == ["RUNNING"], "nothing but the running process journals")

        await releaseHeldQueries(org, until: child)
        #expect(child.terminationStatus == 0)
        #expect(
            try await JSONValue(parsing: try run(["status", "busy", "--json"], org).standardOutput)["status"] == "DONE")
        #expect(try await journaledStatuses() == ["RUNNING", "DONE"])
        await org.stop()
    }

    @Test func aSyncWhoseProcessWasKilledReadsStoppedAndTheNextRunMarksAndResumesIt() async throws {
        let org = try await HeldOrg.start()
        defer { directory.remove() }
        try await setUp(org)

        let child = try await startHeldResync(org)
        kill(child.processIdentifier, SIGKILL)
        await child.exited()
        #expect(child.terminationReason == .uncaughtSignal)
        let status = try await run(["status", "busy", "--json"], org)
        #expect(try JSONValue(parsing: status.standardOutput)["status"] == "STOPPED")
        #expect(try await journaledStatuses() == ["RUNNING"], "status reads only")

        org.simulator.setFaultPlan(.none)
        let again = try await run(["resync", "busy"], org)
        #expect(try JSONValue(parsing: again.standardOutput)["status"] == "DONE")
        #expect(try await journaledStatuses() == ["RUNNING", "STOPPED", "RUNNING", "DONE"])
        await org.clock.release()
        await org.stop()
    }

    // MARK: - Helpers

    private var store: String { directory.appending("store").path }

    @discardableResult
    private func run(_ arguments: [String], _ org: HeldOrg, expecting status: Int32 = 0) async throws
        -> BuiltProduct.Output
    {
        let output = try await msync.run(arguments + ["--store", store] + org.connectionArguments)
        #expect(output.status == status, "\(arguments): \(output.standardError)")
        return output
    }

    /// A soup and a sync down named `busy`, not run yet.
    private func setUp(_ org: HeldOrg) async throws {
        let soups = directory.appending("userstore.json")
        try Data(#"{"soups": [{"soupName": "accounts", "indexes": [{"path": "Id", "type": "string"}]}]}"#.utf8)
            .write(to: soups)
        let syncs = directory.appending("usersyncs.json")
        try Data(
            #"""
            {"syncs": [{"syncName": "busy", "syncType": "syncDown", "soupName": "accounts",
              "target": {"type": "soql", "query": "SELECT Id, Name, LastModifiedDate FROM Account"},
              "options": {"mergeMode": "LEAVE_IF_CHANGED"}}]}
            """#.utf8
        ).write(to: syncs)
        try await run(["setup", "--store-config", soups.path, "--syncs-config", syncs.path], org)
    }

    /// Starts `msync resync busy` in a child and returns once the child's first query reached
    /// the simulator, which holds its answer until the clock is released: the sync is RUNNING.
    ///
    /// Every query is held, not only the first: on a loaded machine the checks that follow can
    /// outlast the client's request timeout, and a retried query answered at once would end
    /// the sync before the test asks about it.
    private func startHeldResync(_ org: HeldOrg) async throws -> Process {
        let queried = Atomic(false)
        org.simulator.setResponseObserver { request, _ in
            if request.path.contains("/query") { queried.store(true, ordering: .sequentiallyConsistent) }
        }
        org.simulator.setFaultPlan(
            FaultPlan(rules: [FaultRule(method: "GET", path: "/services/data/v66.0/query", latencyMs: 1)]))
        let child = try msync.start(
            ["resync", "busy", "--store", store] + org.connectionArguments, quietly: true)
        let didQuery = try await child.waitWhileRunning(until: { queried.load(ordering: .sequentiallyConsistent) })
        org.simulator.setResponseObserver(nil)
        #expect(didQuery, "the child never queried the server")
        return child
    }

    /// Stops holding queries and lets `child` finish: the held query and any that still start
    /// a latency sleep (one that matched the held rule just before it was lifted) return at once.
    private func releaseHeldQueries(_ org: HeldOrg, until child: Process) async {
        org.simulator.setFaultPlan(.none)
        await org.clock.stopHolding()
        await child.exited()
    }

    /// The statuses of the `sync.state.changed` entries, in journal order.
    private func journaledStatuses() async throws -> [String] {
        let output = try await replay.run(["log", store, "--kind", "sync.state.changed", "--json"])
        #expect(output.status == 0, "\(output.standardError)")
        return try JSONValue(parsing: output.standardOutput).array?.compactMap { $0["header"]?["status"]?.string } ?? []
    }

}

/// A simulator on loopback whose injected latency waits on a ``HeldClock``.
private struct HeldOrg {
    let simulator: SalesforceSimulator
    let server: SimulatorServer
    let clock: HeldClock

    static func start() async throws -> HeldOrg {
        let accounts = (1...30).map { number -> (type: String, fields: [String: JSONValue]) in
            (type: "Account", fields: ["Name": .string("Account \(number)")])
        }
        let clock = HeldClock()
        let simulator = try SalesforceSimulator(
            configuration: SalesforceSimulator.Configuration(
                data: SimulatorData(records: accounts), accessToken: "held-token"),
            sleepClock: clock, logger: .discarding)
        let server = try await SimulatorServer.start(simulator, logger: .discarding)
        return HeldOrg(simulator: simulator, server: server, clock: clock)
    }

    var connectionArguments: [String] {
        ["--instance-url", server.url.absoluteString, "--access-token", simulator.accessToken]
    }

    func stop() async {
        await server.stop()
    }
}
