/// A source of wall-clock time.
///
/// Library code never reads the system clock directly: it takes a `WallClock`, so tests and
/// replays can pin time. Use ``SystemWallClock`` in apps and ``ManualWallClock`` in tests.
public protocol WallClock: Sendable {
    /// The current wall time.
    func now() -> WallTime
}
