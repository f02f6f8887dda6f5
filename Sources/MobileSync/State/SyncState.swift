public import LosslessJSON

/// Everything known about one sync: what it syncs, how, and how its last run went.
///
/// Serializes to the JSON Mobile SDK stores in `syncs_soup` (`_soupEntryId`, `type`, `name`,
/// `target`, `options`, `soupName`, `status`, `progress`, `totalSize`, `maxTimeStamp`,
/// `startTime`, `endTime`, `error`) plus `failures`, our summary of per-record failures, and a
/// sync down's `fetchedCount` and `changedCount`.
/// In SyncJournal a state is a projection of the journal's sync entries.
public struct SyncState: Hashable, Sendable {
    /// The sync id, persisted as `_soupEntryId`.
    public var id: Int64
    /// The optional unique name.
    public var name: String?
    /// Where the sync fetches or sends records; it also fixes ``type``.
    public var target: Target
    /// How the sync treats local changes.
    public var options: SyncOptions
    /// The soup the sync reads and writes.
    public var soupName: String
    /// Where the sync is in its life.
    public var status: SyncStatus
    /// Percent done, 0…100.
    public var progress: Int
    /// Records expected by the current run; `-1` when not known yet.
    public var totalSize: Int64
    /// Epoch milliseconds of the latest modification applied; `-1` when none (the watermark).
    public var maxTimeStamp: Int64
    /// Epoch milliseconds when the last run started; `0` when never run.
    public var startTime: Int64
    /// Epoch milliseconds when the last run ended; `0` while running or never run.
    public var endTime: Int64
    /// The message of the error that failed the last run; empty otherwise.
    public var error: String
    /// Records the current or last sync-down run fetched, window re-fetches included. Persisted
    /// as `fetchedCount` when not 0.
    public var fetchedCount: Int64 = 0
    /// Records of ``fetchedCount`` that were not left alone as brought only by the reSync's
    /// window (decision 0325): what the run really had to consider. Persisted as `changedCount`
    /// when not 0.
    public var changedCount: Int64 = 0
    /// Every record modified at or before this instant, epoch milliseconds, was seen by a DONE
    /// run of this sync down: its read began after that second, plus the overlap a transaction
    /// may take, had passed on the server's clock. `-1` when unknown. Persisted as
    /// `settledThrough` when known (decision 0325).
    public var settledThrough: Int64 = -1
    /// Records the last run could not apply or send, summarized.
    public var failures: FailureSummary
    /// For a sync up, what its last run did record by record; `nil` before the first run and
    /// for a sync down. Persisted as `syncUpSummary`.
    public var syncUpSummary: SyncUpSummary?

    /// What a sync targets: a sync down or a sync up descriptor.
    public enum Target: Hashable, Sendable {
        /// A sync down's source.
        case syncDown(SyncDownTargetDescriptor)
        /// A sync up's destination.
        case syncUp(SyncUpTargetDescriptor)

        /// The Mobile SDK target JSON.
        public var json: JSONValue {
            switch self {
            case .syncDown(let target): target.json
            case .syncUp(let target): target.json
            }
        }
    }

    /// Creates a state as Mobile SDK does for a new sync: NEW, progress 0, totalSize -1,
    /// maxTimeStamp -1, no times, no error.
    public init(id: Int64, name: String? = nil, target: Target, options: SyncOptions, soupName: String) {
        self.id = id
        self.name = name
        self.target = target
        self.options = options
        self.soupName = soupName
        self.status = .new
        self.progress = 0
        self.totalSize = -1
        self.maxTimeStamp = -1
        self.startTime = 0
        self.endTime = 0
        self.error = ""
        self.failures = FailureSummary()
    }

    /// The direction of the sync, from its target.
    public var type: SyncType {
        target.syncType
    }

    /// The sync-down target, or `nil` for a sync up.
    public var syncDownTarget: SyncDownTargetDescriptor? {
        if case .syncDown(let target) = target { return target }
        return nil
    }
}
