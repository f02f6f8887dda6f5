import Determinism
import LosslessJSON
import SalesforceAPI

extension SimulatorState {
    /// `GET /services/apexrest/<path>`: the rows of the ``ApexRoute`` registered at `path`, as
    /// `{"records": [...]}`, behind the same token check as the data API. An unknown path is a
    /// 404 `NOT_FOUND`, another method a 405, as Salesforce answers for an Apex class without
    /// that method.
    mutating func serveApex(_ request: SimulatorRequest, path: String) -> RouteResult {
        guard isAuthorized(request.headers["authorization"]) else {
            return RouteResult(
                APIFailure(status: 401, errorCode: "INVALID_SESSION_ID", message: "Session expired or invalid"))
        }
        apiUsage += 1
        guard let route = store.apexRoutes[path] else {
            return RouteResult(
                APIFailure(
                    status: 404, errorCode: "NOT_FOUND",
                    message: "Could not find a match for URL /\(path)"))
        }
        guard request.method == "GET" else {
            return RouteResult(
                APIFailure(
                    status: 405, errorCode: "METHOD_NOT_ALLOWED",
                    message: "HTTP \(request.method) not allowed"))
        }
        do {
            let text = try route.boundQuery(DataRequest.decodeQuery(request.query))
            let parsed = try SOQLParser.parse(text, now: now().millisecondsSinceEpoch)
            let (rows, _) = try SOQLEvaluator(store: store, apiVersion: "v66.0", includeDeleted: false).run(parsed)
            return .json(["records": .array(rows)])
        } catch {
            return RouteResult(error)
        }
    }
}
