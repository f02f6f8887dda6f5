import Determinism
import Foundation
import Logging
import LosslessJSON
import SalesforceAPI
import SalesforceSimulator

/// Drives a simulator in-process: builds requests, decodes answers.
struct SimulatorHarness {
    static let token = "test-token"
    static let version = "v66.0"

    let simulator: SalesforceSimulator

    init(data: SimulatorData = SOQLFixture.data, faultPlan: FaultPlan = .none) throws {
        simulator = try SalesforceSimulator(
            configuration: SalesforceSimulator.Configuration(data: data, accessToken: Self.token, faultPlan: faultPlan),
            sleepClock: ImmediateClock(), logger: Logger.discarding)
    }

    /// Sends a request under `/services/data/v66.0` (or an absolute path) with the test token.
    func send(_ method: String, _ target: String, body: JSONValue? = nil, headers: [String: String] = [:]) async
        -> (status: Int, json: JSONValue)
    {
        let full = target.hasPrefix("/") ? target : "/services/data/\(Self.version)/\(target)"
        var allHeaders = ["Authorization": "Bearer \(Self.token)"]
        for (name, value) in headers { allHeaders[name] = value }
        let response = await simulator.handle(
            SimulatorRequest(method: method, target: full, headers: allHeaders, body: body?.serialized() ?? []))
        let json = response.body.isEmpty ? JSONValue.null : ((try? JSONValue(parsing: response.body)) ?? .null)
        return (response.status, json)
    }

    /// Runs a SOQL query through `GET query?q=`.
    func query(_ soql: String, all: Bool = false, headers: [String: String] = [:]) async -> (
        status: Int, json: JSONValue
    ) {
        await send("GET", "\(all ? "queryAll" : "query")?q=\(Self.encode(soql))", headers: headers)
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// The first error code of an error-array body.
    static func errorCode(_ json: JSONValue) -> String? {
        json.array?.first?["errorCode"]?.string
    }
}
