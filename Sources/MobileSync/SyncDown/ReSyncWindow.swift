import Determinism

/// The modification dates an incremental sync down asks the server for: every record modified
/// at or after the start of the watermark's second, widened by an overlap.
///
/// Salesforce stores `LastModifiedDate` to the second and stamps a record with the start of the
/// transaction that saved it. Asking `LastModifiedDate > watermark`, as Mobile SDK does, skips
/// for good a record edited later in the watermark's own second, and a record whose long
/// transaction started before the watermark but committed after the last run. Asking from the
/// start of that second, minus ``overlapSeconds``, fetches both. A record the window brings
/// although Mobile SDK's `> watermark` would not have (dated at or before
/// ``previousWatermark``) and that the soup already holds with the same date is left alone by
/// the soup fold: no write, no change of owner, not counted as a change (decision 0325).
///
/// ```swift
/// let window = ReSyncWindow(maxTimeStamp: 1_704_067_205_000, overlapSeconds: 60)
/// window.predicate(modificationDateFieldName: "LastModifiedDate")
/// // "LastModifiedDate >= 2024-01-01T00:04:05.000+0000"
/// ```
public struct ReSyncWindow: Hashable, Sendable {
    /// How many seconds before the watermark's second the window opens.
    public var overlapSeconds: Int
    /// The earliest modification asked for, epoch milliseconds, inclusive; `-1` when the run
    /// asks for every record (a first run, or a watermark of `-1`).
    public var modifiedSince: Int64
    /// The watermark Mobile SDK's query would have asked after (`date > previousWatermark`),
    /// epoch milliseconds; `-1` when the run asks for every record. Records dated at or before it
    /// are in the window only because of the window.
    public var previousWatermark: Int64

    /// The window of a run whose watermark is `maxTimeStamp`.
    ///
    /// It opens at the start of the watermark's second minus the overlap, or just after
    /// `settledThrough` when that is later: every record dated at or before it was seen by a
    /// completed run, and a change committed since is dated after it, so a reSync run a few
    /// seconds after the last one asks only for what changed (decision 0325).
    ///
    /// - Parameters:
    ///   - maxTimeStamp: the sync's watermark, epoch milliseconds; values ≤ 0 mean "everything".
    ///   - overlapSeconds: 0…``SyncDownTargetDescriptor/reSyncOverlapSecondsMax``.
    ///   - settledThrough: the sync's ``SyncState/settledThrough``, or `-1`.
    public init(maxTimeStamp: Int64, overlapSeconds: Int = 0, settledThrough: Int64 = -1) {
        precondition((0...SyncDownTargetDescriptor.reSyncOverlapSecondsMax).contains(overlapSeconds), "overlap range")
        self.overlapSeconds = overlapSeconds
        guard maxTimeStamp > 0 else {
            modifiedSince = -1
            previousWatermark = -1
            return
        }
        previousWatermark = maxTimeStamp
        let secondStart = maxTimeStamp - maxTimeStamp % 1000
        modifiedSince = max(0, secondStart - Int64(overlapSeconds) * 1000, settledThrough + 1)
    }

    /// A window read back from a journal entry.
    ///
    /// - Parameters:
    ///   - modifiedSince: the window's start, epoch milliseconds, or `-1` for everything.
    ///   - overlapSeconds: 0…``SyncDownTargetDescriptor/reSyncOverlapSecondsMax``.
    ///   - previousWatermark: the watermark Mobile SDK's query would have used, or `-1`.
    public init(modifiedSince: Int64, overlapSeconds: Int, previousWatermark: Int64) {
        precondition(modifiedSince >= -1, "a window starts at -1 (everything) or at an epoch time")
        precondition((0...SyncDownTargetDescriptor.reSyncOverlapSecondsMax).contains(overlapSeconds), "overlap range")
        precondition(previousWatermark >= -1, "a watermark is -1 (none) or an epoch time")
        self.modifiedSince = modifiedSince
        self.overlapSeconds = overlapSeconds
        self.previousWatermark = previousWatermark
    }

    /// Whether the run asks only for records modified since ``modifiedSince``.
    public var isIncremental: Bool {
        modifiedSince >= 0
    }

    /// `<field> >= <modifiedSince>` in Salesforce's date-time format (UTC), or `nil` when the run
    /// asks for every record.
    public func predicate(modificationDateFieldName: String) -> String? {
        guard isIncremental else { return nil }
        return "\(modificationDateFieldName) >= \(WallTime(millisecondsSinceEpoch: modifiedSince).salesforceFormat)"
    }
}
