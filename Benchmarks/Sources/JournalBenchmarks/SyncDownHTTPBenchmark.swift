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

/// A SOQL sync down of `recordCount` ~1 KB Accounts (4 indexes, pages of 2,000) from the
/// simulator, for each ``StoreConfiguration``: through an in-process transport (client, simulator
/// and engine, no sockets), then over loopback HTTP.
struct SyncDownHTTPBenchmark {
    var recordCount = 100_000
    var configurations = StoreConfiguration.allCases
    var report = Report()

    /// The JSON figures of `journal-benchmarks sync-down-http` (docs/benchmarks.md): records/s,
    /// keyed by configuration.
    struct Figures: Encodable {
        var records: Int
        var inProcess: [String: Double] = [:]
        var loopback: [String: Double] = [:]
    }

    func run() async throws -> Figures {
        let simulator = try SalesforceSimulator(
            configuration: SalesforceSimulator.Configuration(data: data(), accessToken: "benchmark-token"),
            logger: Logger.discarding)
        report.line("SOQL sync down of \(recordCount) Accounts (~1 KB, 4 indexes), pages of 2000, durable commits")
        var figures = Figures(records: recordCount)
        let server = try await SimulatorServer.start(simulator, logger: Logger.discarding)
        for configuration in configurations {
            report.line(configuration.label)
            let inProcess = try await syncDownSeconds(
                transport: SimulatorTransport(simulator), instanceURL: InProcessInstance.url, simulator: simulator,
                configuration: configuration)
            let loopback = try await syncDownSeconds(
                transport: URLSessionTransport(), instanceURL: server.url, simulator: simulator,
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

    private func data() -> SimulatorData {
        let description = String(repeating: "lorem ipsum dolor sit amet ", count: 30)
        var generator = SplitMix64(seed: 7)
        let records = (0..<recordCount).map { index -> (type: String, fields: [String: JSONValue]) in
            let modified = WallTime(millisecondsSinceEpoch: 1_600_000_000_000 + Int64(index) * 1000)
            return (
                type: "Account",
                fields: [
                    "Name": .string("Account \(UInt64.random(in: 0..<1_000_000_000, using: &generator))"),
                    "AnnualRevenue": .number(JSONNumber(Int64.random(in: 0..<10_000_000, using: &generator))),
                    "Industry": .string(["Energy", "Retail", "Banking", "Media"][index & 3]),
                    "Description": .string(description), "LastModifiedDate": .string(modified.salesforceFormat),
                ]
            )
        }
        return SimulatorData(records: records)
    }

    private func syncDownSeconds(
        transport: any HTTPTransport, instanceURL: URL, simulator: SalesforceSimulator,
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
        let target = try SyncDownTargetDescriptor(
            .soql(query: "SELECT Name, AnnualRevenue, Industry, Description FROM Account"))
        let start = ContinuousClock.now
        let final = try await manager.syncDown(target: target, soupName: "accounts")
        let seconds = (ContinuousClock.now - start).inSeconds
        precondition(final.status == .done, "the benchmark sync ends DONE: \(final.error)")
        precondition(final.totalSize == Int64(recordCount), "every record is fetched")
        return seconds
    }
}
