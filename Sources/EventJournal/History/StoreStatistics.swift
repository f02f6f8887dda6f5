import Foundation
import LMDBStore

/// How much room a store takes, and what state its projections are in, for tools and apps
/// watching their disk.
public struct StoreStatistics: Sendable, Hashable {
    /// The size of the journal's data file.
    public var journalFileBytes: Int
    /// The bytes of pages the journal's entries take inside that file.
    public var journalEntryBytes: Int
    /// The size of the projections' data file.
    public var projectionFileBytes: Int
    /// The sequences of the checkpoints on disk, oldest first.
    public var checkpointSequences: [UInt64]
    /// The size of every checkpoint's files together, and of the anchor's data file (the
    /// state just before the horizon that compaction folds forward, decision 0016).
    public var checkpointBytes: Int
    /// The size of the anchor's data file alone, which ``checkpointBytes`` includes: LMDB never
    /// shrinks it, so it holds the largest state compaction folded into it, and the pages its
    /// synced commits replaced.
    public var anchorBytes: Int
    /// The entry the anchor holds the state as of (decision 0016): the horizon's anchor entry,
    /// or a later one after a compaction that stopped before moving the horizon; `nil` for a
    /// store never compacted, or one whose anchor does not continue its journal.
    public var anchorSequence: UInt64?
    /// Whether the projections hold writes that were not synced yet (they are synced when the
    /// store is closed).
    public var projectionsHaveUnsyncedWrites: Bool
    /// Where the journal begins (entries before it were compacted away).
    public var horizon: JournalHorizon
    /// The format the store's journal records (`journal.meta/format-version`): 2 until a
    /// store written before format 3 is first compacted.
    public var formatVersion: UInt32
    /// The bytes of the pages the projections' databases use inside their file.
    public var projectionLiveBytes: Int
    /// The bytes of the pages the journal's databases use inside its file.
    public var journalLiveBytes: Int

    /// The journal's and the projections' files together (checkpoints apart). LMDB files never
    /// shrink: pages freed by compaction are reused by later writes.
    public var fileBytes: Int {
        journalFileBytes + projectionFileBytes
    }

    /// The pages in use in both files: what a compact copy would take.
    public var liveBytes: Int {
        journalLiveBytes + projectionLiveBytes
    }
}

extension Journal {
    /// Measures the store's files and reads the state of its projections.
    public func statistics() throws -> StoreStatistics {
        try requireOpen()
        let (entryBytes, metaBytes, unsynced, horizon, format) = try Self.guarded("cannot read the journal") {
            try journalEnvironment.read { transaction in
                (
                    try transaction.statistics(entries).pageBytes, try transaction.statistics(meta).pageBytes,
                    try transaction.get(meta, key: Self.unsyncedBootKey) != nil,
                    try Self.horizon(meta: meta, in: transaction),
                    try Self.recordedFormatVersion(meta: meta, in: transaction) ?? Self.formatVersion
                )
            }
        }
        let projectionLiveBytes = try Self.guarded("cannot read the projections") {
            try projectionEnvironment.read { transaction in
                try (Array(store.databases.values) + [store.kinds, store.fold]).reduce(0) { total, database in
                    total + (try transaction.statistics(database).pageBytes)
                }
            }
        }
        let checkpoints = checkpointStore(in: layout.checkpointDirectory)
        let manifests = checkpoints.sequences().compactMap { sequence in
            checkpoints.manifest(sequence).map { (sequence, $0) }
        }.sorted { $0.0 < $1.0 }
        let sequences = manifests.map(\.0)
        let anchorBytes = Self.fileBytes(anchor.dataFile)
        let checkpointBytes = manifests.reduce(anchorBytes) { total, checkpoint in
            total + Self.fileBytes(checkpoints.dataFile(checkpoint.0, checkpoint.1))
        }
        return StoreStatistics(
            journalFileBytes: Self.fileBytes(layout.journalDirectory.appendingPathComponent("data.mdb")),
            journalEntryBytes: entryBytes,
            projectionFileBytes: Self.fileBytes(layout.projectionDirectory.appendingPathComponent("data.mdb")),
            checkpointSequences: sequences, checkpointBytes: checkpointBytes, anchorBytes: anchorBytes,
            anchorSequence: try Self.guarded("cannot read the anchor") { try validAnchorMark()?.sequence },
            projectionsHaveUnsyncedWrites: unsynced,
            horizon: horizon, formatVersion: format, projectionLiveBytes: projectionLiveBytes,
            journalLiveBytes: entryBytes + metaBytes)
    }

    static func fileBytes(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}
