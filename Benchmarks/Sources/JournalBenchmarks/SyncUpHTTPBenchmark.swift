import BenchmarkSupport
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
/// (200 per request) to the simulator, for each ``StoreConfiguration``: in-process (no sockets),
/// then over loopback HTTP. The time inside the transport (request, server, answer) is measured
/// apart from the rest, which is the engine: reading the dirty set, building requests, and
/// journaling every intent and outcome with its soup fold.
struct SyncUpHTTPBenchmark {
    var recordCount = 10_000
    var configurations = StoreConfiguration.allCases
    var report = Report()

    /// The JSON figures of `journal-benchmarks sync-up-http` (docs/benchmarks.md), keyed by configuration.
    struct Figures: Encodable {
        var records: Int
        var inProcess: [String: Measurement] = [:]
        var loopback: [String: Measurement] = [:]
    }

    func run() async throws -> Figures {
        report.line("Sync up of \(recordCount) local creates, sObject Collections target, durable commits")
        var figures = Figures(records: recordCount)
        for configuration in configurations {
            report.line(configuration.label)
            let inProcess = try await measure(over: .inProcess, configuration: configuration)
            report.line(inProcess.line("  in-process transport"))
            let loopback = try await measure(over: .loopback, configuration: configuration)
            report.line(loopback.line("  loopback HTTP       "))
            figures.inProcess[configuration.rawValue] = inProcess
            figures.loopback[configuration.rawValue] = loopback
        }
        return figures
    }

    private enum Route { case inProcess, loopback }

    /// One sync up's figures.
    struct Measurement: Encodable {
        var requests: Int
        var seconds: Double
        var recordsPerSecond: Double
        /// Waiting for answers: the request on the wire, the simulator's work, the answer.
        var transportSeconds: Double
        /// Everything else.
        var engineSeconds: Double

        init(total: Double, transport: Double, requests: Int, records: Int) {
            self.requests = requests
            seconds = total.rounded(decimals: 3)
            recordsPerSecond = (Double(records) / total).rounded(decimals: 0)
            transportSeconds = transport.rounded(decimals: 3)
            engineSeconds = (total - transport).rounded(decimals: 3)
        }

        func line(_ label: String) -> String {
            String(
                format: "%@: %d requests, total %.2f s (%.0f records/s), transport+server %.2f s, engine %.2f s",
                label, requests, seconds, recordsPerSecond, transportSeconds, engineSeconds)
        }
    }

    private func measure(over route: Route, configuration: StoreConfiguration) async throws -> Measurement {
        let simulator = try SalesforceSimulator(
            configuration: SalesforceSimulator.Configuration(accessToken: "benchmark-token"), logger: Logger.discarding)
        let server = route == .loopback ? try await SimulatorServer.start(simulator, logger: Logger.discarding) : nil
        let inner: any HTTPTransport = server == nil ? SimulatorTransport(simulator) : URLSessionTransport()
        let transport = TimedTransport(inner)
        let directory = try TemporaryDirectory("bench-syncup")
        defer { directory.remove() }
        let clock = ManualWallClock(tick: .milliseconds(1))
        let store = try SyncDownBenchmark.makeStore(
            directory, clock: clock, configuration: configuration, indexSpecs: [IndexSpec(path: "Id", type: .string)])
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
                instanceURL: server?.url ?? InProcessInstance.url,
                accessToken: simulator.accessToken),
            transport: transport, logger: Logger.discarding)
        let manager = try SyncManager(store: store, client: client, clock: clock, logger: Logger.discarding)
        let start = ContinuousClock.now
        let final = try await manager.syncUp(
            options: SyncOptions(mergeMode: .overwrite, fieldlist: ["Name", "Industry"]), soupName: "accounts")
        let total = (ContinuousClock.now - start).inSeconds
        await server?.stop()
        precondition(final.status == .done, "the benchmark sync ends DONE: \(final.error)")
        precondition(simulator.liveRecords(type: "Account").count == recordCount, "every record reaches the server")
        let dirty = try store.soups.dirtyRecords("accounts").count
        precondition(dirty == 0, "every record is clean")
        return Measurement(
            total: total, transport: transport.seconds, requests: transport.requests, records: recordCount)
    }
}
