/// When the journal writes a checkpoint of its projections (after so many entries, so many
/// journal bytes, or so much time, whichever comes first) and when it pins a newer synced
/// snapshot of them.
///
/// A synced snapshot (decision 0014) is the projections' own file, synced, with a read
/// transaction keeping its pages from reuse and its meta page recorded beside it: the point a
/// store recovers from after a power loss or an OS crash (the projections are otherwise
/// committed without a sync). Its limits (``snapshotEntryCountMax``,
/// ``snapshotJournalBytesMax``, ``snapshotGrowthBytesMin``) bound that recovery's fold and the
/// pages a pin keeps from reuse.
///
/// A checkpoint is a compact, synced copy of the projections: the point `state --as-of` and
/// `verify` fold forward from, and the recovery point when the synced snapshot cannot be used.
/// Once a journal whose ``RetentionPolicy`` compacts it to an entry count or a byte size
/// (``RetentionPolicy/boundsHistory``, the default for apps) has been compacted, it writes none
/// of these: the checkpoint at its horizon, which every compaction writes, stands in for them.
/// Before that first compaction such a journal keeps only its newest checkpoint.
public struct CheckpointPolicy: Sendable, Hashable {
    /// Entries appended since the last checkpoint that make the next one due.
    ///
    /// 50,000 entries fold in well under a second (docs/benchmarks-log.md), which bounds both a
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

    /// Entries appended since a process pinned the projections' synced snapshot (decision
    /// 0014) that make it pin a newer one.
    ///
    /// After a power loss the store reopens that snapshot and folds the entries after it, so
    /// this bounds the recovery's fold; each pin costs an `fsync` of the projection pages
    /// written since the last one and keeps the pages freed meanwhile from reuse until the next.
    public var snapshotEntryCountMax: UInt64 = 10_000

    /// Journal bytes (pages of the entries database) appended since a process pinned the
    /// projections' synced snapshot that make it pin a newer one; see
    /// ``snapshotEntryCountMax``. 32 MiB of fetched pages is about 30,000 records, a fraction
    /// of a second of fold.
    public var snapshotJournalBytesMax: Int = 32 << 20

    /// Whether the projections' synced snapshot is pinned and recorded as the recovery point
    /// after a power loss (decision 0014). Off by default (decision 0019): measured with
    /// `journal-benchmarks soup --records 100000`, it makes the app default's plaintext insert
    /// 13 % slower and its store 23 % larger (pages kept from reuse, and each renewal's sync),
    /// for an open after a power loss of a 1,000,000-record store in 0.6 s instead of
    /// 3.1–3.7 s. Off, a power loss restores the newest checkpoint or the anchor and folds every
    /// entry after it. A process killed without a power loss reopens in a few milliseconds
    /// either way.
    public var pinsSyncedSnapshots = false

    /// Growth of the projections' file since a process pinned their synced snapshot that
    /// makes it pin a newer one, when a quarter of the file's size at the pin is less.
    ///
    /// LMDB copies every page a commit changes and reuses no page the pin can still reach, so
    /// between two pins the file grows by what was written; this bounds that growth to a
    /// quarter of the file, at the price of one `fsync` of the pages written per renewal.
    public var snapshotGrowthBytesMin: Int = 1 << 20

    /// Whether checkpoints are written and synced snapshots pinned at all. Tests that count
    /// files and throw-away stores turn them off; a store without either rebuilds its
    /// projections from the first entry after a power loss.
    public var isEnabled = true

    /// The default policy.
    public init() {}
}
