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

/// A SOQL sync down of `recordCount` Accounts of `shape` (4 indexes, pages of 2,000) from the
/// simulator, for each ``StoreConfiguration``: through an in-process transport (client, simulator
/// and engine, no sockets), then over loopback HTTP.
///
/// With `lorem` the simulator's Accounts are the ~1 KB records of every figure before issue 48
/// and the query selects their four fields; with `org` they are ``OrgRecords``' Accounts and the
/// query selects every one of their fields (``SyncDownHTTPBenchmark/simulatorData()``).
struct SyncDownHTTPBenchmark {
    var recordCount = 100_000
    /// What the simulator's Accounts look like (`--shape`).
    var shape = RecordShape.lorem
    var configurations = StoreConfiguration.allCases
    var report = Report()

    /// The JSON figures of `journal-benchmarks sync-down-http` (docs/benchmarks.md): records/s,
    /// keyed by configuration.
    struct Figures: Encodable {
        struct Parameters: Encodable {
            var records: Int
            var shape: RecordShape
        }

        var parameters: Parameters
        var inProcess: [String: Double] = [:]
        var loopback: [String: Double] = [:]
    }

    func run() async throws -> Figures {
        let (data, query, fieldCount) = simulatorData()
        let simulator = try SalesforceSimulator(
            configuration: SalesforceSimulator.Configuration(data: data, accessToken: "benchmark-token"),
            logger: Logger.discarding)
        let kind = shape == .org ? "org-shaped Accounts" : "Accounts (~1 KB)"
        report.line(
            "SOQL sync down of \(recordCount) \(kind), \(fieldCount) fields selected, 4 indexes, pages of 2000, "
                + "durable commits")
        var figures = Figures(parameters: Figures.Parameters(records: recordCount, shape: shape))
        let server = try await SimulatorServer.start(simulator, logger: Logger.discarding)
        for configuration in configurations {
            report.line(configuration.label)
            let inProcess = try await syncDownSeconds(
                transport: SimulatorTransport(simulator), instanceURL: InProcessInstance.url, simulator: simulator,
                query: query, configuration: configuration)
            let loopback = try await syncDownSeconds(
                transport: URLSessionTransport(), instanceURL: server.url, simulator: simulator, query: query,
                configuration: configuration)
            figures.inProcess[configuration.rawValue] = (Double(recordCount) / inProcess).rounded(decimals: 0)
            figures.loopback[configuration.rawValue] = (Double(recordCount) / loopback).rounded(decimals: 0)
            report.line(
                String(
                    format: "  in-process transport: %.2f s, %9.0f records/s", inProcess,
                    Double(recordCount) / inProcess))
            report.line(
                String(
                    format: "  loopback HTTP:        %.2f s, %9.0f records/s", loopback, Double(recordCount) / loopback)
            )
        }
        await server.stop()
        return figures
    }

    private func syncDownSeconds(
        transport: any HTTPTransport, instanceURL: URL, simulator: SalesforceSimulator, query: String,
        configuration: StoreConfiguration
    ) async throws -> Double {
        let directory = try TemporaryDirectory("bench-syncdown-http")
        defer { directory.remove() }
        let clock = ManualWallClock(tick: .milliseconds(1))
        let store = try SyncDownBenchmark.makeStore(
            directory, clock: clock, configuration: configuration,
            indexSpecs: [
                IndexSpec(path: "Id", type: .string), IndexSpec(path: "Name", type: .string),
                IndexSpec(path: "AnnualRevenue", type: .integer), IndexSpec(path: "Industry", type: .string),
            ])
        let client = SalesforceClient(
            credentials: SalesforceCredentials(instanceURL: instanceURL, accessToken: simulator.accessToken),
            transport: transport, logger: Logger.discarding)
        let manager = try SyncManager(store: store, client: client, clock: clock, logger: Logger.discarding)
        let target = try SyncDownTargetDescriptor(.soql(query: query))
        let start = ContinuousClock.now
        let final = try await manager.syncDown(target: target, soupName: "accounts")
        let seconds = (ContinuousClock.now - start).inSeconds
        precondition(final.status == .done, "the benchmark sync ends DONE: \(final.error)")
        precondition(final.totalSize == Int64(recordCount), "every record is fetched")
        return seconds
    }
}
