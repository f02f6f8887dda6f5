import Determinism
import EventJournal
import Foundation
import Logging
import LosslessJSON
import MobileSync
import SalesforceAPI
import SalesforceSimulator
import Soups
import SyncTesting
import Synchronization

/// A sync up of `recordCount` records created locally, through the sObject Collections target
/// (200 per request) to the simulator: in-process (no sockets), then over loopback HTTP. The
/// time inside the transport (request, server, answer) is measured apart from the rest, which
/// is the engine: reading the dirty set, building requests, and journaling every intent and
/// outcome with its soup fold.
struct SyncUpHTTPBenchmark {
    var recordCount = 10_000

    func run() async throws {
        print("Sync up of \(recordCount) local creates, sObject Collections target, durable commits")
        let inProcess = try await measure(over: .inProcess)
        print(inProcess.line("in-process transport"))
        let loopback = try await measure(over: .loopback)
        print(loopback.line("loopback HTTP       "))
    }

    private enum Route { case inProcess, loopback }

    private struct Measurement {
        var total: Double
        var transport: Double
        var requests: Int
        var records: Int

        func line(_ label: String) -> String {
            String(
                format: "%@: %d requests, total %.2f s (%.0f records/s), transport+server %.2f s, engine %.2f s",
                label, requests, total, Double(records) / total, transport, total - transport)
        }
    }

    private func measure(over route: Route) async throws -> Measurement {
        let simulator = try SalesforceSimulator(
            configuration: SalesforceSimulator.Configuration(accessToken: "benchmark-token"), logger: Logger.discarding)
        let server = route == .loopback ? try await SimulatorServer.start(simulator, logger: Logger.discarding) : nil
        let inner: any HTTPTransport = server == nil ? SimulatorTransport(simulator) : URLSessionTransport()
        let transport = TimedTransport(inner)
        let directory = try TemporaryDirectory("bench-syncup")
        defer { directory.remove() }
        let clock = ManualWallClock(tick: .milliseconds(1))
        let store = try SyncDownBenchmark.makeStore(
            directory, clock: clock, indexSpecs: [IndexSpec(path: "Id", type: .string)])
        let records: [JSONValue] = (1...recordCount).map { number in
            [
                "attributes": ["type": "Account"], "Id": .string("local_\(number)"),
                "Name": .string("Upload \(number)"),
                "Industry": "Energy", "__local__": true, "__locally_created__": true, "__locally_updated__": false,
                "__locally_deleted__": false,
            ]
        }
        _ = try store.soups.create("accounts", records)
        let client = SalesforceClient(
            credentials: SalesforceCredentials(
                instanceURL: server?.url ?? URL(string: "http://in-process.invalid")!,
                accessToken: simulator.accessToken),
            transport: transport, logger: Logger.discarding)
        let manager = try SyncManager(store: store, client: client, clock: clock, logger: Logger.discarding)
        let start = ContinuousClock.now
        let final = try await manager.syncUp(
            options: SyncOptions(mergeMode: .overwrite, fieldlist: ["Name", "Industry"]), soupName: "accounts")
        let total = SyncDownBenchmark.seconds(ContinuousClock.now - start)
        await server?.stop()
        precondition(final.status == .done, "the benchmark sync ends DONE: \(final.error)")
        precondition(simulator.liveRecords(type: "Account").count == recordCount, "every record reaches the server")
        let dirty = try store.soups.dirtyRecords("accounts").count
        precondition(dirty == 0, "every record is clean")
        return Measurement(
            total: total, transport: transport.seconds, requests: transport.requests, records: recordCount)
    }
}

/// Counts requests and adds up the time spent waiting for their answers.
private final class TimedTransport: HTTPTransport {
    private let inner: any HTTPTransport
    private let totals = Mutex<(requests: Int, seconds: Double)>((0, 0))

    init(_ inner: any HTTPTransport) {
        self.inner = inner
    }

    var requests: Int { totals.withLock { $0.requests } }
    var seconds: Double { totals.withLock { $0.seconds } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let start = ContinuousClock.now
        defer {
            let elapsed = SyncDownBenchmark.seconds(ContinuousClock.now - start)
            totals.withLock {
                $0.requests += 1
                $0.seconds += elapsed
            }
        }
        return try await inner.send(request)
    }
}
