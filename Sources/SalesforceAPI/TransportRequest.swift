public import Foundation

/// One HTTP request as ``HTTPTransport`` sends it.
public struct TransportRequest: Sendable, Hashable {
    /// The HTTP method, upper case (`GET`, `POST`, `PATCH`, `DELETE`).
    public var method: String
    /// The absolute URL.
    public var url: URL
    /// Header fields in the order they are sent.
    public var headers: [String: String]
    /// The body bytes, or `nil` for none.
    public var body: Data?

    /// Creates a request.
    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}
