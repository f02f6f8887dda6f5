import Synchronization

/// A clock whose sleeps last until the test releases them, whatever their duration.
///
/// Given to a simulator as its `sleepClock`, with a fault rule that adds latency to one
/// request, it holds that request's answer exactly as long as a test needs: the client is then
/// mid-request — its sync RUNNING — until ``release()``. No thread is blocked meanwhile.
public final class HeldClock: Clock, Sendable {
    public typealias Duration = Swift.Duration
    public typealias Instant = ContinuousClock.Instant

    private let gate = Mutex(Latch())

    /// Creates a clock whose sleeps are held.
    public init() {}

    /// The continuous clock's time.
    public var now: Instant {
        ContinuousClock.now
    }

    /// The continuous clock's resolution.
    public var minimumResolution: Duration {
        ContinuousClock().minimumResolution
    }

    /// Waits until ``release()``; the deadline is ignored.
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        await gate.withLock { $0 }.wait()
    }

    /// Ends every sleep in progress; sleeps that start later are held again.
    public func release() async {
        let released = gate.withLock { gate in
            defer { gate = Latch() }
            return gate
        }
        await released.open()
    }
}
