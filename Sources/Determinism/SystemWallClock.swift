import Foundation

/// The live wall clock: the operating system's time of day.
///
/// This file is the only place in `Sources/` that reads the system's time of day; everything
/// else receives a ``WallClock``.
public struct SystemWallClock: WallClock {
    /// Creates the live clock.
    public init() {}

    public func now() -> WallTime {
        WallTime(millisecondsSinceEpoch: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
