import Determinism
import Foundation
import LosslessJSON
import SalesforceAPI

extension SimulatorState {
    /// The control plane under `/__simulator/`: reset, clock, faults, tokens, request log and
    /// recent items. Not logged and never faulted, so tests can observe the org undisturbed.
    mutating func control(_ request: SimulatorRequest) -> SimulatorResponse {
        let segments = Array(DataRequest.segments(of: request.path).dropFirst())
        let query = DataRequest.decodeQuery(request.query)
        let result: RouteResult
        switch (request.method, segments) {
        case ("POST", ["reset"]):
            reset()
            result = .json(["accessToken": .string(currentToken ?? "")])
        case ("GET", ["clock"]):
            result = .json(["now": .string(now().salesforceFormat)])
        case ("POST", ["clock", "advance"]):
            guard let seconds = query["seconds"].flatMap(Int64.init),
                abs(seconds) <= SalesforceSimulator.clockAdvanceSecondsMax
            else {
                return Self.controlError("seconds must be an integer number of seconds")
            }
            clockOffsetMilliseconds += seconds * 1000
            result = .json(["now": .string(now().salesforceFormat)])
        case ("PUT", ["faults"]):
            guard let plan = try? JSONDecoder().decode(FaultPlan.self, from: Data(request.body)) else {
                return Self.controlError("the body must be a fault plan (see docs/simulator.md)")
            }
            setFaultPlan(plan)
            result = .noContent
        case ("DELETE", ["faults"]):
            setFaultPlan(.none)
            result = .noContent
        case ("POST", ["tokens", "expire"]):
            accessTokens.removeAll()
            result = .noContent
        case ("POST", ["tokens", "revoke"]):
            accessTokens.removeAll()
            refreshTokenRevoked = true
            result = .noContent
        case ("GET", ["requests"]):
            result = .json(.array(requestLog))
        case ("DELETE", ["requests"]):
            requestLog.removeAll()
            result = .noContent
        case (_, let path) where path.first == "records":
            return adminRecords(request, segments: path)
        case ("PUT", let path) where path.count == 2 && path[0] == "recent":
            return setRecentItems(type: path[1], body: request.body)
        default:
            result = RouteResult(APIFailure.notFound())
        }
        return Self.response(result)
    }

    mutating func setFaultPlan(_ plan: FaultPlan) {
        faultPlan = plan
        faultRandom = SplitMix64(seed: plan.seed ?? configuration.seed)
        faultRuleHits = [:]
    }

    private mutating func setRecentItems(type: String, body: [UInt8]) -> SimulatorResponse {
        guard let object = store.schema.object(named: type) else {
            return Self.response(RouteResult(APIFailure.notFound()))
        }
        guard let ids = (try? JSONValue(parsing: body))?.array?.compactMap(\.string) else {
            return Self.controlError("the body must be a JSON array of ids")
        }
        store.recentItems[object.name] = Array(
            ids.compactMap { SalesforceID($0)?.rawValue }.prefix(OrgStore.recentItemCountMax))
        return Self.response(.noContent)
    }

    static func controlError(_ message: String) -> SimulatorResponse {
        response(RouteResult(APIFailure(errorCode: "INVALID_SIMULATOR_REQUEST", message: message)))
    }
}
