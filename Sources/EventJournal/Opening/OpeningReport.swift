/// What opening a store found and did, for logs, tools (`journal-replay info`) and tests.
public struct OpeningReport: Sendable, Hashable {
    /// Where the projections came from.
    public enum Source: Sendable, Hashable, CustomStringConvertible {
        /// The projections on disk were trusted as they were.
        case trusted
        /// The projections on disk were not trusted; the checkpoint at this sequence was
        /// restored and the journal folded from there.
        case restoredCheckpoint(UInt64)
        /// The projections on disk were not trusted after a power loss; their synced snapshot
        /// (decision 0014), folded through this sequence, was reopened in place and the journal
        /// folded from there.
        case restoredSyncedSnapshot(UInt64)
        /// The projections were folded from the first entry.
        case rebuilt

        public var description: String {
            switch self {
            case .trusted: "trusted"
            case .restoredCheckpoint(let sequence): "restored from the checkpoint at \(sequence)"
            case .restoredSyncedSnapshot(let sequence): "restored from the synced snapshot at \(sequence)"
            case .rebuilt: "rebuilt"
            }
        }
    }

    /// Where the projections came from.
    public var projections: Source
    /// Why the projections on disk were not used as they were, when they were not.
    public var reason: String?
    /// What was wrong with the projections' file when damage is why they were not used: a
    /// truncated file, a bad meta page, or a damaged page a process met and noted (decision
    /// 0013). `journal-replay verify` reports it.
    public var projectionsDamage: String?
    /// The format of the store before this open converted it, when it did.
    public var migratedFromFormat: UInt32?
    /// The projection versions (`name@version`, comma-separated) whose state this open
    /// migrated in place to this build's, when it did (a compacted store, decision 0010).
    public var migratedProjectionsFrom: String?
    /// How many entries opening folded into the projections.
    public var foldedEntries: UInt64 = 0
}
