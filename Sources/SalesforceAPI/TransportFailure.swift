/// Why a transport produced no answer.
public struct TransportFailure: Error, Sendable {
    /// Whether the request timed out (as opposed to failing to connect or losing the connection).
    public var isTimeout: Bool
    /// A human-readable reason.
    public var message: String

    /// Creates a failure.
    public init(isTimeout: Bool, message: String) {
        self.isTimeout = isTimeout
        self.message = message
    }
}
