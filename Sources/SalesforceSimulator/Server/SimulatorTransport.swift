import Foundation
public import SalesforceAPI

/// Connects a `SalesforceClient` to a simulator in the same process, without sockets.
///
/// Requests go straight to ``SalesforceSimulator/handle(_:)``, so the whole client — retries,
/// token refresh, error decoding — runs as over HTTP, deterministically and fast: what seeded
/// simulations and engine benchmarks need. A response that drops the connection becomes the
/// same SalesforceAPI `TransportFailure` a real dropped connection gives.
public struct SimulatorTransport: HTTPTransport {
    private let simulator: SalesforceSimulator

    /// Creates a transport to `simulator`.
    public init(_ simulator: SalesforceSimulator) {
        self.simulator = simulator
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        // Header names arrive lowercased from the HTTP server, so they do here too.
        var headers: [String: String] = [:]
        for (name, value) in request.headers { headers[name.lowercased()] = value }
        let simulated = SimulatorRequest(
            method: request.method, path: components?.percentEncodedPath ?? request.url.path,
            query: components?.percentEncodedQuery ?? "", headers: headers,
            body: request.body.map(Array.init) ?? [])
        let response = await simulator.handle(simulated)
        if response.dropsConnection {
            throw TransportFailure(isTimeout: false, message: "the simulator dropped the connection")
        }
        return TransportResponse(status: response.status, headers: response.headers, body: Data(response.body))
    }
}
