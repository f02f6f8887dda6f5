import Determinism
import Foundation
import Logging
import LosslessJSON
import SalesforceAPI
import SalesforceSimulator
import Synchronization

/// A simulator served on 127.0.0.1 (a free port) and a client pointed at it.
struct LoopbackOrg {
    static let refreshToken = "simulator-refresh-token"
    static let logger = Logger.discarding

    let simulator: SalesforceSimulator
    let server: SimulatorServer
    let client: SalesforceClient
    let clock: ImmediateClock
    let refreshes: Recorder<SalesforceCredentials>

    /// Runs `body` against a fresh org and always stops the server afterwards.
    static func with<T>(
        data: SimulatorData = .empty, retryPolicy: RetryPolicy = .standard, apiVersion: String = "v66.0",
        _ body: (LoopbackOrg) async throws -> T
    ) async throws -> T {
        let simulator = try SalesforceSimulator(
            configuration: SalesforceSimulator.Configuration(data: data, seed: 42), sleepClock: ImmediateClock(),
            logger: logger)
        let server = try await SimulatorServer.start(simulator, logger: logger)
        let clock = ImmediateClock()
        let refreshes = Recorder<SalesforceCredentials>()
        let client = SalesforceClient(
            credentials: SalesforceCredentials(
                instanceURL: server.url, accessToken: simulator.accessToken, refreshToken: refreshToken,
                clientID: "test-client"),
            apiVersion: apiVersion, retryPolicy: retryPolicy, clock: clock, randomSeed: 7, logger: logger,
            onCredentialsRefresh: { refreshes.append($0) })
        let org = LoopbackOrg(simulator: simulator, server: server, client: client, clock: clock, refreshes: refreshes)
        do {
            let result = try await body(org)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Calls the control plane over HTTP.
    @discardableResult
    func control(_ method: String, _ path: String, body: JSONValue? = nil) async throws -> (
        status: Int, json: JSONValue
    ) {
        let url = server.url.appendingPathComponent("__simulator").appendingPathComponent(path)
        let target = path.contains("?") ? URL(string: server.url.absoluteString + "/__simulator/" + path) ?? url : url
        let response = try await URLSessionTransport().send(
            TransportRequest(method: method, url: target, body: body.map { Data($0.serialized()) }))
        return (response.status, response.body.isEmpty ? .null : try JSONValue(parsing: response.body))
    }

    /// The request log (Salesforce requests only), newest last.
    func requestLog() async throws -> [JSONValue] {
        try await control("GET", "requests").json.array ?? []
    }

    /// Installs a fault plan.
    func faults(_ plan: FaultPlan) async throws {
        let data = try JSONEncoder().encode(plan)
        try await control("PUT", "faults", body: try JSONValue(parsing: data))
    }
}

/// Collects values from `@Sendable` callbacks.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    func append(_ value: Value) { values.withLock { $0.append(value) } }

    var all: [Value] { values.withLock { $0 } }
}
