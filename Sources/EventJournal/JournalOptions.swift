public import Determinism
public import Foundation
public import LMDBStore

/// How a ``Journal`` stores its data.
public struct JournalOptions: Sendable {
    /// The LMDB options of both environments (map size, growth). LMDBStore's
    /// `EnvironmentOptions.flushesOnCommit` applies to the journal; the projections are never
    /// synced at commit.
    public var environment: EnvironmentOptions

    /// How many entries one transaction folds during a rebuild, a recovery or an import.
    /// Folds commit in batches so that a journal of millions of entries never needs one
    /// enormous transaction.
    public var rebuildBatchSize: Int = 10_000

    /// When checkpoints of the projections are written.
    public var checkpoints = CheckpointPolicy()

    /// How much history the journal keeps; see ``Journal/compact(retention:archive:progress:)``.
    public var retention = RetentionPolicy.appDefault

    /// Where compaction appends the entries it removes (the JSON-lines export format), so
    /// support can still replay a whole session; `nil` keeps no archive. Automatic compactions
    /// use it too.
    public var compactionArchive: URL?

    /// How many entries one compaction transaction removes, so compaction never holds the
    /// journal's writer for long.
    public var compactionBatchSize: Int = 2_000

    /// Tells whether the machine restarted since the projections were last written without a
    /// sync; see SyncCore's `BootIdentity`.
    public var bootIdentity: any BootIdentity = SystemBootIdentity()

    /// Called while opening a store does long work (a migration, a restore, a fold of the
    /// journal's tail), so tools can show progress.
    public var openingProgress: (@Sendable (OpeningProgress) -> Void)?

    /// The key the store is encrypted with, or `nil` for a plaintext store.
    ///
    /// With a key, every entry (header and payload), every projection value and every
    /// checkpoint is sealed with AES-GCM under the store's own keys, which this key wraps
    /// (decision 0006). A new store is created encrypted; an existing store opens only with
    /// the key it was created with (``JournalError/Code/wrongKey``,
    /// ``JournalError/Code/keyRequired``, ``JournalError/Code/notEncrypted``). Re-key with
    /// ``Journal/rotateKey(directory:from:to:options:batchSize:progress:)``.
    ///
    /// - Warning: Without a key, records, server pages and sync states are written to disk in
    ///   plaintext, readable by anyone who can read the store's files. Ship apps with a key.
    ///   Even with one, keys of databases are not sealed: see docs/encryption.md for exactly
    ///   what the files reveal.
    public var encryption: StoreKey?

    /// How observers notice commits made by other processes.
    public var observation = ObservationOptions()

    /// Whether entries whose payload compresses are stored compressed with zstd (decision 0029).
    ///
    /// A sync-down page of org-shaped records takes about a sixth of its bytes this way, for
    /// about 7 µs of the writer's time per record. Entries are read the same either way, and a
    /// store may hold both: turning this off only stops new entries from being compressed.
    /// Exports are always uncompressed.
    public var compressesEntries = true

    /// The smallest payload whose zstd frame is made on a second thread while the projections
    /// fold the entry, rather than before (decision 0034).
    ///
    /// 64 KiB, about 200 µs of zstd-3: below it a thread's start and join (tens of
    /// microseconds) would eat what the overlap saves, and an entry that small folds quickly
    /// anyway. A sync-down page (megabytes) is far above it. The stored bytes are the same
    /// either way; tests set it to 0 or `Int.max` to compare the two paths.
    package var compressionBesideFoldPayloadBytesMin = 64 << 10

    /// Whether the store is opened only to be read: no byte of it is written (decision 0024).
    ///
    /// Both environments are opened with `MDB_RDONLY`. LMDB still records this process's
    /// readers in each `lock.mdb`, shared with any writer, so a writer in another process
    /// never reuses a page being read. Nothing is converted, repaired or noted: projections
    /// that cannot be trusted as they are, or that have not folded the journal's last entries
    /// (a writer was killed), are folded in a scratch copy in the system's temporary directory,
    /// removed when the journal closes; history folds leave no checkpoints. Writing throws
    /// ``JournalError/Code/unsupported``, and a store of format 1 is refused
    /// (``JournalError/Code/needsMigration``), since converting it writes.
    public var isReadOnly = false

    /// Creates the default options.
    public init(environment: EnvironmentOptions = EnvironmentOptions()) {
        self.environment = environment
    }
}

/// How far the long work of opening a store has come.
public struct OpeningProgress: Sendable, Hashable {
    /// What is being done.
    public var phase: Phase
    /// Entries folded so far (records, in ``Phase/compressingRecords``).
    public var folded: UInt64
    /// Entries to fold in all (records, in ``Phase/compressingRecords``).
    public var total: UInt64

    /// Creates a report of `folded` out of `total` done in `phase`.
    public init(phase: Phase, folded: UInt64, total: UInt64) {
        self.phase = phase
        self.folded = folded
        self.total = total
    }

    /// The kinds of long work opening can do.
    public enum Phase: String, Sendable, Hashable {
        /// Converting a store of an older format.
        case migrating
        /// Folding the journal into projections restored from a checkpoint or rebuilt.
        case recovering
        /// Folding the entries that other processes appended but did not fold.
        case catchingUp
        /// Storing records compressed that a store written before record compression, or
        /// left part-way, still holds as JSON; `folded` and `total` count records, not entries
        /// (decision 0033). Reported by the stores built on the journal, after it opened.
        case compressingRecords
    }
}
