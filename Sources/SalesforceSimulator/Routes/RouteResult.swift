import LosslessJSON

/// What a resource handler answers: a status, a JSON body (or none) and headers.
struct RouteResult: Sendable {
    var status: Int
    var body: JSONValue?
    var headers: [String: String] = [:]

    static func json(_ body: JSONValue, status: Int = 200) -> RouteResult {
        RouteResult(status: status, body: body)
    }

    static let noContent = RouteResult(status: 204, body: nil)

    init(status: Int, body: JSONValue?, headers: [String: String] = [:]) {
        self.status = status
        self.body = body
        self.headers = headers
    }

    init(_ failure: APIFailure) {
        self.init(status: failure.status, body: failure.body)
    }
}
