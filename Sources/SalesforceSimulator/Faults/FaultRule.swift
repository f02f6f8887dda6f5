/// One targeted fault: which requests it matches and what happens to them.
public struct FaultRule: Codable, Sendable, Hashable {
    /// Where a dropped connection happens relative to the request's write.
    public enum DropPoint: String, Codable, Sendable, Hashable {
        /// Drop without executing the request: nothing is written.
        case beforeCommit
        /// Execute the request (its writes commit), then drop instead of answering.
        case afterCommit
    }

    /// The HTTP method to match; any when `nil`.
    public var method: String?
    /// A path prefix to match, e.g. `/services/data/v66.0/sobjects/Account`.
    public var path: String
    /// Answer with this status and a Salesforce error body instead of executing.
    public var status: Int?
    /// The `errorCode` of that body (`SERVER_UNAVAILABLE` for 5xx, `FAULT_INJECTED` otherwise).
    public var errorCode: String?
    /// The `message` of that body.
    public var message: String?
    /// Drop the connection at this point.
    public var drop: DropPoint?
    /// Extra latency in milliseconds.
    public var latencyMs: Int?
    /// How many matching requests the rule affects; all when `nil`.
    public var count: Int?
    /// The probability, in 0…1, that a matching request is affected; always when `nil`.
    public var rate: Double?

    /// Creates a rule.
    public init(
        method: String? = nil, path: String, status: Int? = nil, errorCode: String? = nil, message: String? = nil,
        drop: DropPoint? = nil, latencyMs: Int? = nil, count: Int? = nil, rate: Double? = nil
    ) {
        self.method = method
        self.path = path
        self.status = status
        self.errorCode = errorCode
        self.message = message
        self.drop = drop
        self.latencyMs = latencyMs
        self.count = count
        self.rate = rate
    }
}
