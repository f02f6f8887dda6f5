import Synchronization

/// An ``IDGenerator`` for live stores: identifiers are microsecond readings of a wall clock,
/// raised to stay strictly increasing.
///
/// Mobile SDK makes local ids from a nanosecond clock so that ids minted by different runs of
/// an app never collide; this does the same through an injected ``WallClock``, so a test with a
/// ``ManualWallClock`` still gets predictable ids.
public final class ClockIDGenerator: IDGenerator {
    private let clock: any WallClock
    private let last = Mutex<UInt64>(0)

    /// Creates a generator reading `clock`.
    public init(clock: any WallClock) {
        self.clock = clock
    }

    public func next() -> UInt64 {
        let reading = UInt64(clamping: clock.now().millisecondsSinceEpoch) &* 1000
        return last.withLock { last in
            last = max(last + 1, reading)
            return last
        }
    }
}
