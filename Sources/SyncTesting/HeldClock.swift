import Synchronization

/// A clock whose sleeps last until the test releases them, whatever their duration.
///
/// Given to a simulator as its `sleepClock`, with a fault rule that adds latency to one
/// request, it holds that request's answer exactly as long as a test needs: the client is then
/// mid-request — its sync RUNNING — until ``release()``. No thread is blocked meanwhile.
public final class HeldClock: Clock, Sendable {
    public typealias Duration = Swift.Duration
    public typealias Instant = ContinuousClock.Instant

    /// The latch the sleeps in progress wait on; `nil` once ``stopHolding()`` was called.
    private let gate = Mutex<Latch?>(Latch())

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

    /// Waits until ``release()`` or ``stopHolding()``; the deadline is ignored. Returns at once
    /// after ``stopHolding()``.
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        guard let latch = gate.withLock({ $0 }) else { return }
        await latch.wait()
    }

    /// Ends every sleep in progress; sleeps that start later are held again, unless
    /// ``stopHolding()`` was called.
    public func release() async {
        let released = gate.withLock { gate in
            defer { if gate != nil { gate = Latch() } }
            return gate
        }
        await released?.open()
    }

    /// Ends every sleep in progress and every later one at once: from now on the clock holds
    /// nothing, so a test can let a client finish without releasing it again and again.
    public func stopHolding() async {
        let released = gate.withLock { gate in
            defer { gate = nil }
            return gate
        }
        await released?.open()
    }
}
