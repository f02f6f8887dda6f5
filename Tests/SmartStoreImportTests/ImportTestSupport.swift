import Determinism
import Foundation
import LosslessJSON
import SalesforceAPI
import SalesforceSimulator
import SmartStoreImport
import SyncTesting
import Synchronization
import Testing

/// The progress reports an import gave, collected from any thread.
final class ProgressLog: Sendable {
    private let reports = Mutex<[SmartStoreImportProgress]>([])

    func append(_ report: SmartStoreImportProgress) {
        reports.withLock { $0.append(report) }
    }

    var all: [SmartStoreImportProgress] {
        reports.withLock { $0 }
    }
}

/// A simulator on 127.0.0.1 holding the sample's server Accounts, and a client for it.
struct SimulatedOrg {
    let simulator: SalesforceSimulator
    let client: SalesforceClient

    /// Runs `body` against an org holding the sample's three server Accounts; always stops it.
    static func with<T>(_ body: (SimulatedOrg) async throws -> T) async throws -> T {
        let modified = WallTime(millisecondsSinceEpoch: SmartStoreSample.watermark).salesforceFormat
        let accounts: [(type: String, fields: [String: JSONValue])] = [
            (SmartStoreSample.clean, "Café Crème"), (SmartStoreSample.updated, "Old name"),
            (SmartStoreSample.deleted, "Gone locally"),
        ].map { id, name in
            (
                type: "Account",
                fields: ["Id": .string(id), "Name": .string(name), "LastModifiedDate": .string(modified)]
            )
        }
        let simulator = try SalesforceSimulator(
            configuration: SalesforceSimulator.Configuration(
                data: SimulatorData(records: accounts), seed: 42,
                clock: .logical(start: WallTime(millisecondsSinceEpoch: SmartStoreSample.watermark))),
            sleepClock: ImmediateClock(), logger: .discarding)
        let server = try await SimulatorServer.start(simulator, logger: .discarding)
        let client = SalesforceClient(
            credentials: SalesforceCredentials(
                instanceURL: server.url, accessToken: simulator.accessToken, refreshToken: "simulator-refresh-token",
                clientID: "test-client"),
            clock: ImmediateClock(), randomSeed: 7, logger: .discarding)
        do {
            let result = try await body(SimulatedOrg(simulator: simulator, client: client))
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// The method and path of every Salesforce request received, oldest first.
    func requests() -> [String] {
        simulator.requestLog().map { "\($0["method"]?.string ?? "") \($0["path"]?.string ?? "")" }
    }

    /// The SOQL texts of the queries received, oldest first.
    func soqlSent() -> [String] {
        simulator.requestLog().compactMap { entry in
            guard entry["path"]?.string?.hasSuffix("/query") == true else { return nil }
            return entry["query"]?.string
        }
    }
}
