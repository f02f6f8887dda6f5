/// How much history a journal keeps: entries beyond any of its limits may be compacted away.
///
/// Each limit caps the history kept; `nil` leaves that dimension unlimited, and a policy with
/// no limit keeps everything (``unlimited``, for tests and debugging). Compaction never removes
/// the newest entry, entries a projection still needs (``Projection/oldestNeededSequence(in:)``,
/// for example an upload whose outcome is unknown), or entries past the newest state it can
/// checkpoint, so the history kept can exceed a limit; it never falls short of one.
///
/// ```swift
/// var options = JournalOptions()
/// options.retention = RetentionPolicy(age: .seconds(3 * 86_400), journalBytes: 16 << 20)
/// ```
public struct RetentionPolicy: Sendable, Hashable {
    /// Entries older than this, by their timestamps and the journal's clock, may be removed.
    public var age: Duration?
    /// At most this many of the newest entries are kept.
    public var entryCount: UInt64?
    /// At most this many bytes of the newest entries (their stored envelopes) are kept.
    ///
    /// Stored envelopes are compressed (``JournalOptions/compressesEntries``, decision 0029), so
    /// a limit keeps about six times more sync-down pages of org-shaped records than their size
    /// as fetched.
    public var journalBytes: Int?
    /// Whether appends compact by themselves once the history passes a limit by a quarter of
    /// it (the slack keeps compaction from running at every append). Under ``journalBytes``, a
    /// store's first compaction waits until the history beyond the limit and the checkpoint
    /// copies together are as large as the projections, since it creates the anchor, a second
    /// copy of their state (decision 0016): compacting earlier would make the store larger,
    /// not smaller. Without it, only
    /// ``Journal/compact(retention:archive:progress:)`` compacts.
    public var compactsAutomatically: Bool

    /// A policy with the given limits.
    public init(
        age: Duration? = nil, entryCount: UInt64? = nil, journalBytes: Int? = nil, compactsAutomatically: Bool = true
    ) {
        self.age = age
        self.entryCount = entryCount
        self.journalBytes = journalBytes
        self.compactsAutomatically = compactsAutomatically
    }

    /// Keeps every entry for ever.
    public static let unlimited = RetentionPolicy(compactsAutomatically: false)

    /// The default for apps: a week of history, at most 8 MiB of it.
    ///
    /// A week covers what support asks about ("it went wrong yesterday"); 8 MiB bounds a store
    /// that reSyncs every few minutes to a few times its soups' size. docs/benchmarks-log.md has
    /// the measurement behind it.
    public static let appDefault = RetentionPolicy(age: .seconds(7 * 86_400), journalBytes: 8 << 20)

    /// Whether appends compact by themselves to an entry count or a byte size: the history
    /// after the horizon is then bounded, and once the journal was compacted the anchor (the
    /// horizon's state) serves as the recovery point instead of the ``CheckpointPolicy``'s.
    public var boundsHistory: Bool {
        compactsAutomatically && (entryCount != nil || journalBytes != nil)
    }

    /// Whether any limit is set.
    public var isLimited: Bool {
        age != nil || entryCount != nil || journalBytes != nil
    }
}
