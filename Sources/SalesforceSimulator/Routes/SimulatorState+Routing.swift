import Determinism
import Foundation
import LosslessJSON
import SalesforceAPI

extension SimulatorState {
    static let jsonContentType = "application/json;charset=UTF-8"

    /// Answers one request and says how long to delay the answer (injected latency).
    mutating func respond(to request: SimulatorRequest) -> (SimulatorResponse, Duration) {
        if request.path.hasPrefix("/__simulator") { return (control(request), .zero) }
        let fault = drawFault(method: request.method, path: request.path)
        var response: SimulatorResponse
        if fault.dropsBeforeCommit {
            response = SimulatorResponse(status: 0, dropsConnection: true)
        } else if let injected = fault.response {
            response = injected
        } else {
            response = serve(request)
            response.dropsConnection = fault.dropsAfterCommit
        }
        // Salesforce's clock, as every HTTP server sends it: a reSync reads it (decision 0325).
        response.headers["Date"] = now().httpDate
        appendLog(Self.logEntry(request, status: response.dropsConnection ? 0 : response.status))
        return (response, fault.latency)
    }

    /// Serves a Salesforce request: token endpoint, version list, or a data resource.
    mutating func serve(_ request: SimulatorRequest) -> SimulatorResponse {
        guard request.path.utf8.count + request.query.utf8.count <= SalesforceLimits.uriLengthMax else {
            return Self.response(
                RouteResult(APIFailure(status: 414, errorCode: "URI_TOO_LONG", message: "The request URI is too long."))
            )
        }
        let segments = DataRequest.segments(of: request.path)
        switch segments.count {
        case 3 where segments == ["services", "oauth2", "token"]:
            return Self.response(request.method == "POST" ? token(request) : RouteResult(APIFailure.notFound()))
        case 2 where segments == ["services", "data"]:
            return Self.response(.json(.array([versionEntry("v66.0")])))
        case 3... where segments[0] == "services" && segments[1] == "data":
            return Self.response(serveData(request, segments: segments))
        case 3... where segments[0] == "services" && segments[1] == "apexrest":
            return Self.response(serveApex(request, path: segments.dropFirst(2).joined(separator: "/")))
        default:
            return Self.response(RouteResult(APIFailure.notFound()))
        }
    }

    private mutating func serveData(_ request: SimulatorRequest, segments: [String]) -> RouteResult {
        let version = segments[2]
        guard DataRequest.isVersion(version) else { return RouteResult(APIFailure.notFound()) }
        guard isAuthorized(request.headers["authorization"]) else {
            return RouteResult(
                APIFailure(status: 401, errorCode: "INVALID_SESSION_ID", message: "Session expired or invalid"))
        }
        apiUsage += 1
        var body: JSONValue?
        if !request.body.isEmpty {
            do {
                body = try JSONValue(parsing: request.body)
            } catch {
                return RouteResult(APIFailure.jsonParser("Unexpected character in the request body: \(error)"))
            }
        }
        let data = DataRequest(
            method: request.method, segments: Array(segments.dropFirst(3)),
            query: DataRequest.decodeQuery(request.query),
            headers: request.headers, body: body, version: version)
        var result: RouteResult
        do {
            result = try route(data)
        } catch {
            result = RouteResult(error)
        }
        result.headers["Sforce-Limit-Info"] = "api-usage=\(apiUsage)/\(Self.dailyAPIRequestsMax)"
        return result
    }

    /// Whether the `Authorization` header carries a live token (`Bearer` or the legacy `OAuth`).
    func isAuthorized(_ header: String?) -> Bool {
        guard let header else { return false }
        for scheme in ["Bearer ", "OAuth "] where header.hasPrefix(scheme) {
            return accessTokens.contains(String(header.dropFirst(scheme.count)))
        }
        return false
    }

    /// Routes a data request by its segments.
    mutating func route(_ request: DataRequest) throws(APIFailure) -> RouteResult {
        let segments = request.segments
        switch segments.first?.lowercased() {
        case nil:
            try Self.require(request, "GET", allowed: "GET,HEAD")
            return .json(resourceMap(request.version))
        case "limits":
            try Self.require(request, "GET", allowed: "GET,HEAD")
            return .json([
                "DailyApiRequests": [
                    "Max": .number(JSONNumber(Int64(Self.dailyAPIRequestsMax))),
                    "Remaining": .number(JSONNumber(Int64(Self.dailyAPIRequestsMax - apiUsage))),
                ]
            ])
        case "query", "queryall":
            try Self.require(request, "GET", allowed: "GET,HEAD")
            return try query(request, includeDeleted: segments[0].lowercased() == "queryall")
        case "search":
            try Self.require(request, "GET", allowed: "GET,HEAD")
            return try search(request)
        case "sobjects":
            return try sObjects(request)
        case "composite":
            return try composite(request)
        case "connect":
            try Self.require(request, "GET", allowed: "GET,HEAD")
            guard request.segments.map({ $0.lowercased() }) == ["connect", "briefcase", "priming-records"] else {
                throw APIFailure.notFound()
            }
            return try primingRecords(request)
        case "ui-api":
            try Self.require(request, "GET", allowed: "GET,HEAD")
            guard request.segments.count == 3, request.segments[1].lowercased() == "layout" else {
                throw APIFailure.notFound()
            }
            return try layout(request, type: request.segments[2])
        default:
            throw APIFailure.notFound()
        }
    }

    static func require(_ request: DataRequest, _ method: String, allowed: String) throws(APIFailure) {
        guard request.method == method else { throw APIFailure.methodNotAllowed(request.method, allowed: allowed) }
    }

    func versionEntry(_ version: String) -> JSONValue {
        [
            "label": "Spring '26", "url": .string("/services/data/\(version)"),
            "version": .string(String(version.dropFirst())),
        ]
    }

    func resourceMap(_ version: String) -> JSONValue {
        var map: [String: JSONValue] = [:]
        for name in ["sobjects", "query", "queryAll", "search", "composite", "limits", "connect", "ui-api"] {
            map[name] = .string("/services/data/\(version)/\(name)")
        }
        return .object(map)
    }

    /// Turns a route result into bytes with Salesforce's headers.
    static func response(_ result: RouteResult) -> SimulatorResponse {
        var headers = result.headers
        var body: [UInt8] = []
        if let json = result.body {
            headers["Content-Type"] = jsonContentType
            body = json.serialized()
        }
        return SimulatorResponse(status: result.status, headers: headers, body: body)
    }

    static func logEntry(_ request: SimulatorRequest, status: Int) -> JSONValue {
        var headers: [String: JSONValue] = [:]
        for (name, value) in request.headers { headers[name] = .string(value) }
        return [
            "method": .string(request.method), "path": .string(request.path), "query": .string(request.query),
            "headers": .object(headers),
            "body": request.body.isEmpty ? .null : .string(String(decoding: request.body, as: UTF8.self)),
            "status": .number(JSONNumber(Int64(status))),
        ]
    }
}
