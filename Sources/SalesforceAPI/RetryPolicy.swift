/// How ``SalesforceClient`` retries idempotent requests after a 5xx, a timeout or a dropped
/// connection: bounded exponential backoff with jitter.
///
/// Attempt *n* (1-based, after the first failure) waits `min(delayInitial · 2ⁿ⁻¹, delayMax)`,
/// scaled by a random factor in [0.5, 1) drawn from the client's seeded generator so that
/// clients failing together do not retry together. Non-idempotent requests (a `POST` create,
/// composite and collection writes) are never retried: a lost answer could hide a committed write.
public struct RetryPolicy: Sendable, Hashable {
    /// The most attempts, including the first.
    public var attemptCountMax: Int
    /// The delay before the first retry.
    public var delayInitial: Duration
    /// The longest delay between attempts.
    public var delayMax: Duration

    /// Creates a policy.
    public init(attemptCountMax: Int = 4, delayInitial: Duration = .milliseconds(200), delayMax: Duration = .seconds(5))
    {
        self.attemptCountMax = max(1, attemptCountMax)
        self.delayInitial = delayInitial
        self.delayMax = delayMax
    }

    /// The default: four attempts, 200 ms doubling up to 5 s.
    public static let standard = RetryPolicy()

    /// Never retry.
    public static let none = RetryPolicy(attemptCountMax: 1)

    /// The delay before retry number `retry` (1-based), given a uniform random `fraction` in [0, 1).
    public func delay(beforeRetry retry: Int, fraction: Double) -> Duration {
        let exponent = min(max(retry - 1, 0), 30)
        var delay = delayInitial * (1 << exponent)
        if delay > delayMax { delay = delayMax }
        return delay * (0.5 + 0.5 * min(max(fraction, 0), 1))
    }
}
