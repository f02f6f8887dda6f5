public import Foundation
import LMDBStore

// Point-in-time state: the projections as they were right after entry S, folded from the
// nearest checkpoint at or below S instead of from entry 1. docs/architecture.md ("Reading
// the past") explains the design.
extension Journal {
    /// Where checkpoints live unless told otherwise: `checkpoints/` inside the store.
    public var defaultCheckpointDirectory: URL {
        layout.checkpointDirectory
    }

    /// How far apart the checkpoints a history fold leaves behind are: the same interval as
    /// the default ``CheckpointPolicy``, so no question folds more than one interval.
    public static let checkpointIntervalDefault: UInt64 = CheckpointPolicy().entryCountMax

    /// Runs `body` with the projections' state as of entry `sequence`.
    ///
    /// The state as of the journal's last entry is the projections themselves. Any earlier
    /// state is folded, in a scratch environment, from the nearest valid checkpoint at or below
    /// `sequence`: the store's own checkpoints (written as the journal grows, see
    /// ``CheckpointPolicy``) and those a history fold leaves at every multiple of
    /// `checkpointInterval` it passes. A checkpoint records the checksum of the entry it ends
    /// at and the projection versions, and one that does not match the journal is discarded.
    /// - Parameters:
    ///   - sequence: the last entry to include; clamped to the journal's last entry.
    ///   - checkpointDirectory: where checkpoints live; `checkpoints/` inside the store by default.
    ///   - checkpointInterval: how many entries apart the history fold leaves checkpoints.
    ///   - body: reads the state through a ``ProjectionContext`` over a read-only transaction.
    /// - Complexity: one copy of a checkpoint plus the entries folded since it: at most one
    ///   interval once checkpoints exist below `sequence`.
    public func withState<T>(
        asOf sequence: UInt64, checkpointDirectory: URL? = nil,
        checkpointInterval: UInt64 = Journal.checkpointIntervalDefault,
        _ body: (_ state: ProjectionContext, _ sequence: UInt64) throws -> T
    ) throws -> T {
        try read { reader in
            let last = try reader.lastSequence
            let target = min(sequence, last)
            if target == last {
                return try body(store.context(reader.transaction), target)
            }
            return try Self.guarded("cannot rebuild the state as of entry \(sequence)") {
                try foldHistory(
                    reader, through: target,
                    checkpoints: checkpointStore(in: checkpointDirectory ?? defaultCheckpointDirectory),
                    interval: checkpointInterval
                ) { state in try body(state, target) }
            }
        }
    }

    private func foldHistory<T>(
        _ reader: JournalReader, through target: UInt64, checkpoints: CheckpointStore, interval: UInt64,
        _ body: (ProjectionContext) throws -> T
    ) throws -> T {
        try withFoldedState(reader, through: target, checkpoints: checkpoints, interval: interval) { destination in
            try destination.environment.read { try body(destination.context($0)) }
        }
    }

    /// Runs `body` with a scratch ``ProjectionStore`` holding the state as of entry `target`:
    /// the nearest valid checkpoint at or below it, folded forward. When `interval` is given,
    /// checkpoints are left at every multiple of it the fold passes.
    ///
    /// - Throws: ``JournalError/Code/belowHorizon`` when `target` lies before the horizon's
    ///   checkpoint, or when no valid checkpoint continues the compacted journal.
    func withFoldedState<T>(
        _ reader: JournalReader, through target: UInt64, checkpoints: CheckpointStore, interval: UInt64?,
        _ body: (ProjectionStore) throws -> T
    ) throws -> T {
        let horizon = try reader.horizon
        guard target >= horizon.anchorSequence else {
            throw horizon.belowHorizonError(target, asking: "cannot show the state as of entry \(target)")
        }
        let scratch = Self.scratchDirectoryURL()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let restored = try checkpoints.restoreNearest(
            atOrBelow: target, entryChecksum: { try reader.continuableChecksum(of: $0) }, into: scratch)
        if restored == nil, horizon.isCompacted {
            throw JournalError(
                .belowHorizon,
                "cannot fold the state as of entry \(target): entries before the horizon, entry "
                    + "\(horizon.firstSequence), were compacted away and no valid checkpoint at or after entry "
                    + "\(horizon.anchorSequence) is left in \(checkpoints.directory.path)",
                sequence: target)
        }
        let destination = try ProjectionStore(
            projections: projections, in: scratchEnvironment(scratch))
        if restored == nil { try destination.environment.write { try destination.reset(in: $0) } }
        _ = try fold(
            from: reader, upTo: target, into: destination, boundary: interval,
            reachedBoundary: { _ in try checkpoints.save(destination.environment) }, progress: nil)
        return try body(destination)
    }

    /// Scratch environments are thrown away, so their commits are never synced.
    var scratchOptions: EnvironmentOptions {
        var scratchOptions = EnvironmentOptions()
        scratchOptions.flushesOnCommit = false
        scratchOptions.namedDatabaseCountMax = options.environment.namedDatabaseCountMax
        return scratchOptions
    }

    /// A throw-away environment in `directory`, sealed like the store's own: checkpoints are
    /// restored into it byte for byte, and what it holds is as private as the store.
    func scratchEnvironment(_ directory: URL) throws -> Environment {
        try Environment(directory: directory, options: scratchOptions, sealer: projectionSealer)
    }

    /// The checkpoints in `directory`, read and written with the store's seal, and the store's
    /// anchor.
    func checkpointStore(in directory: URL) -> CheckpointStore {
        var checkpoints = CheckpointStore(directory: directory, signature: store.signature, sealer: projectionSealer)
        checkpoints.anchor = anchor
        checkpoints.isReadOnly = options.isReadOnly
        return checkpoints
    }

    /// The store's anchor (decision 0016).
    package var anchor: Anchor {
        Anchor(
            in: layout, sealer: projectionSealer, options: options.environment,
            mapSizeBytes: projectionEnvironment.mapSizeBytes)
    }

    /// The seal of environments shaped like the projections: the store's cipher, or the
    /// checksums of a plaintext store's values (decision 0012), without the live store's damage
    /// mark, since damage in a copy is not damage in the projections.
    var projectionSealer: any ValueSealer {
        journalEnvironment.sealer ?? ValueChecksummer()
    }
}
