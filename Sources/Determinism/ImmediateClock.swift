import Synchronization

/// A `Clock` whose `sleep` returns at once after moving its own time forward.
///
/// Code that waits (retry backoff, polling) takes `any Clock<Duration>`; tests pass an
/// `ImmediateClock` so they never sleep, and read ``sleeps`` to assert how long the code asked
/// to wait.
public final class ImmediateClock: Clock, Sendable {
    /// A point on an ``ImmediateClock``'s time line.
    public struct Instant: InstantProtocol, Sendable {
        /// Time elapsed since the clock was created.
        public var offset: Duration

        /// The point `offset` after the clock's start.
        public init(offset: Duration) {
            self.offset = offset
        }

        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleeps: [Duration] = []
    }

    private let state = Mutex(State())

    /// Creates a clock at offset zero.
    public init() {}

    public var now: Instant {
        state.withLock { $0.now }
    }

    public var minimumResolution: Duration {
        .zero
    }

    /// Every duration passed to `sleep`, oldest first.
    public var sleeps: [Duration] {
        state.withLock { $0.sleeps }
    }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            let duration = state.now.duration(to: deadline)
            state.sleeps.append(duration)
            if deadline > state.now { state.now = deadline }
        }
    }
}
