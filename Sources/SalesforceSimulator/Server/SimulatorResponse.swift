/// The simulator's answer to one request.
public struct SimulatorResponse: Sendable, Hashable {
    /// The HTTP status.
    public var status: Int
    /// Header fields.
    public var headers: [String: String]
    /// The body bytes (empty for 204).
    public var body: [UInt8]
    /// Whether the server should drop the connection instead of answering (a fault).
    public var dropsConnection: Bool

    /// Creates a response.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = [], dropsConnection: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.dropsConnection = dropsConnection
    }
}
