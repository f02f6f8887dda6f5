import Synchronization

/// A wall clock that moves only when told to, for tests, simulations and replays.
///
/// ```swift
/// let clock = ManualWallClock(WallTime(millisecondsSinceEpoch: 1_700_000_000_000))
/// clock.advance(by: .seconds(5))
/// ```
public final class ManualWallClock: WallClock {
    private let current: Mutex<WallTime>
    private let stepMilliseconds: Int64

    /// Creates a clock that starts at `start`.
    ///
    /// - Parameters:
    ///   - start: The first time ``now()`` returns.
    ///   - tick: How far the clock moves after each reading; `.zero` (the default) keeps it still
    ///     until ``advance(by:)`` is called. A non-zero tick gives every reading a distinct time,
    ///     the way a logical clock does.
    public init(_ start: WallTime = WallTime(millisecondsSinceEpoch: 1_700_000_000_000), tick: Duration = .zero) {
        current = Mutex(start)
        stepMilliseconds = WallTime(millisecondsSinceEpoch: 0).advanced(by: tick).millisecondsSinceEpoch
    }

    public func now() -> WallTime {
        current.withLock { time in
            let reading = time
            time.millisecondsSinceEpoch += stepMilliseconds
            return reading
        }
    }

    /// Moves the clock forward (or backward, for a negative duration).
    public func advance(by duration: Duration) {
        current.withLock { $0 = $0.advanced(by: duration) }
    }

    /// Sets the clock to `time`.
    public func set(_ time: WallTime) {
        current.withLock { $0 = time }
    }
}
