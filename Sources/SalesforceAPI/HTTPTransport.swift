/// Sends one HTTP request and returns the server's answer, whatever its status.
///
/// ``SalesforceClient`` talks to the network only through this protocol, so tests and apps can
/// swap the default ``URLSessionTransport`` for a recording or in-memory one.
///
/// Implementations answer every HTTP status, including 4xx and 5xx, with a ``TransportResponse``;
/// they throw only when no answer arrived (connection refused or dropped, timeout).
public protocol HTTPTransport: Sendable {
    /// Sends a request and waits for the complete response.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The status, headers and body the server answered with.
    /// - Throws: A ``TransportFailure`` when no complete answer arrived.
    func send(_ request: TransportRequest) async throws -> TransportResponse
}
