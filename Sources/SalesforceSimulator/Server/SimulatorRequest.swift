/// One HTTP request as the simulator sees it, independent of the HTTP server, so tests and
/// embedders can call ``SalesforceSimulator/handle(_:)`` without sockets.
public struct SimulatorRequest: Sendable, Hashable {
    /// The HTTP method, upper case.
    public var method: String
    /// The path as received, still percent-encoded, without the query.
    public var path: String
    /// The raw query string (without `?`), empty when none.
    public var query: String
    /// Header fields keyed by lower-cased name.
    public var headers: [String: String]
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a request; header names are lower-cased.
    public init(method: String, path: String, query: String = "", headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method.uppercased()
        self.path = path
        self.query = query
        var lowered: [String: String] = [:]
        for (name, value) in headers { lowered[name.lowercased()] = value }
        self.headers = lowered
        self.body = body
    }

    /// Splits a request target (`/path?query`) into path and query.
    public init(method: String, target: String, headers: [String: String] = [:], body: [UInt8] = []) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        self.init(
            method: method, path: String(parts.first ?? ""), query: parts.count > 1 ? String(parts[1]) : "",
            headers: headers, body: body)
    }
}
