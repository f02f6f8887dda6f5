/// Faults the simulator injects into Salesforce requests (never into `/__simulator/` calls).
///
/// Sent as JSON to `PUT /__simulator/faults`, or given at start:
///
/// ```json
/// {"seed": 7, "serverErrorRate": 0.1, "latencyMs": 20,
///  "rules": [{"method": "POST", "path": "/services/data/v66.0/composite", "status": 503, "count": 1},
///            {"path": "/services/data/v66.0/sobjects/Account", "drop": "afterCommit", "count": 1}]}
/// ```
///
/// Draws use a generator seeded with `seed`, so a plan replays identically.
public struct FaultPlan: Codable, Sendable, Hashable {
    /// Seeds the generator behind `serverErrorRate` and rule `rate`s.
    public var seed: UInt64?
    /// The probability, in 0…1, that any Salesforce request answers 503 `SERVER_UNAVAILABLE`.
    public var serverErrorRate: Double?
    /// Latency added to every Salesforce request, in milliseconds.
    public var latencyMs: Int?
    /// Targeted faults; the first matching rule applies.
    public var rules: [FaultRule]?

    /// Creates a plan.
    public init(seed: UInt64? = nil, serverErrorRate: Double? = nil, latencyMs: Int? = nil, rules: [FaultRule]? = nil) {
        self.seed = seed
        self.serverErrorRate = serverErrorRate
        self.latencyMs = latencyMs
        self.rules = rules
    }

    /// No faults.
    public static let none = FaultPlan()
}
