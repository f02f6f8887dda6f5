public import Foundation

/// A point in wall-clock time, in whole milliseconds since 1970-01-01T00:00:00Z.
///
/// Salesforce timestamps have millisecond precision, and the journal stores time as an integer
/// so that a fold over the journal is exact: no floating-point rounding ever changes a watermark.
public struct WallTime: Hashable, Comparable, Sendable, Codable {
    /// Milliseconds since 1970-01-01T00:00:00Z (negative before it).
    public var millisecondsSinceEpoch: Int64

    /// Creates a wall time from milliseconds since the Unix epoch.
    public init(millisecondsSinceEpoch: Int64) {
        self.millisecondsSinceEpoch = millisecondsSinceEpoch
    }

    /// The same instant as a Foundation `Date`.
    public var date: Date {
        Date(timeIntervalSince1970: Double(millisecondsSinceEpoch) / 1000)
    }

    /// Returns this time moved by `duration`, truncated to whole milliseconds.
    public func advanced(by duration: Duration) -> WallTime {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return WallTime(millisecondsSinceEpoch: millisecondsSinceEpoch + milliseconds)
    }

    public static func < (lhs: WallTime, rhs: WallTime) -> Bool {
        lhs.millisecondsSinceEpoch < rhs.millisecondsSinceEpoch
    }
}
