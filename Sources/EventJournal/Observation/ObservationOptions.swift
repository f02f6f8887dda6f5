/// How a ``Journal`` notices the commits of other processes while something observes it.
///
/// Commits made through the observed `Journal` instance wake its observers at once. Another
/// process writing the same store cannot signal this one, so while at least one observer is
/// active, one watcher per journal reads the projections' fold mark (one read transaction and
/// one key) every ``pollInterval``, waiting on ``clock``. Nothing polls while nobody observes.
///
/// ```swift
/// var options = JournalOptions()
/// options.observation = ObservationOptions(clock: ContinuousClock(), pollInterval: .milliseconds(250))
/// ```
public struct ObservationOptions: Sendable {
    /// The clock the watcher waits on between two checks.
    public var clock: any Clock<Duration>
    /// How long the watcher waits between two checks, or `nil` to watch this instance's own
    /// commits only (a store no other process writes). Intervals below ``pollIntervalMin``
    /// (zero or negative included) are taken as it: a watcher that never waits would spin.
    public var pollInterval: Duration?

    /// The shortest wait between two checks.
    public static let pollIntervalMin: Duration = .milliseconds(1)

    /// The default interval: a change made by another process shows within a tenth of a
    /// second, and a check costs about as much as one `Journal.lastSequence()`.
    public static let pollIntervalDefault: Duration = .milliseconds(100)

    /// Creates options.
    ///
    /// - Parameters:
    ///   - clock: where the watcher's waits come from; tests pass a clock they control.
    ///   - pollInterval: the wait between two checks; `nil` checks on this instance's commits only.
    public init(clock: any Clock<Duration> = ContinuousClock(), pollInterval: Duration? = pollIntervalDefault) {
        self.clock = clock
        self.pollInterval = pollInterval
    }
}
