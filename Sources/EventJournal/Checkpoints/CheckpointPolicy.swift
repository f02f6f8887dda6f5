/// When the journal writes a checkpoint of its projections: after so many entries, so many
/// journal bytes, or so much time, whichever comes first.
///
/// Once a journal whose ``RetentionPolicy`` compacts it to an entry count or a byte size
/// (``RetentionPolicy/boundsHistory``, the default for apps) has been compacted, it writes none
/// of these: the checkpoint at its horizon, which every compaction writes, is its recovery point.
///
/// A checkpoint is a compact, synced copy of the projections. It is the point a store
/// recovers from after a power loss or an OS crash (the projections themselves are committed
/// without a sync), and the point `state --as-of` folds forward from, so each limit bounds the
/// work of both: at most one interval of entries is ever folded again.
public struct CheckpointPolicy: Sendable, Hashable {
    /// Entries appended since the last checkpoint that make the next one due.
    ///
    /// 50,000 entries fold in well under a second (docs/benchmarks.md), which bounds both a
    /// recovery after a power loss and any `state --as-of` question.
    public var entryCountMax: UInt64 = 50_000

    /// Journal bytes (pages of the entries database) grown since the last checkpoint that make
    /// the next one due.
    ///
    /// Fetched pages are large entries: 1 GiB of them is about 1,000,000 records, a few seconds
    /// of fold. Bigger values copy the projections less often.
    public var journalBytesMax: Int = 1 << 30

    /// Time since the last checkpoint after which the next entry makes one due.
    ///
    /// A store written slowly still gets a recent recovery point. It is long because a
    /// checkpoint copies the whole projections: a short interval would copy a large soup for a
    /// handful of edits.
    public var intervalMax: Duration = .seconds(6 * 3600)

    /// Whether checkpoints are written at all. Tests that count files and throw-away stores
    /// turn them off; a store without checkpoints rebuilds its projections from the first
    /// entry after a power loss.
    public var isEnabled = true

    /// The default policy.
    public init() {}
}
