public import Foundation

/// One HTTP response as ``HTTPTransport`` returns it.
public struct TransportResponse: Sendable, Hashable {
    /// The HTTP status code.
    public var status: Int
    /// Header fields, keyed by lower-cased name.
    public var headers: [String: String]
    /// The body bytes (empty when there is none).
    public var body: Data

    /// Creates a response; header names are lower-cased so lookups need not care about case.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        var lowered: [String: String] = [:]
        for (name, value) in headers { lowered[name.lowercased()] = value }
        self.headers = lowered
        self.body = body
    }
}
