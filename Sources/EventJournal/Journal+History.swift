public import Foundation
import LMDBStore

// Point-in-time state: the projections as they were right after entry S, rebuilt from the
// nearest checkpoint at or below S instead of from entry 1. docs/architecture.md ("Reading
// the past") explains the design.
extension Journal {
    /// Where ``withState(asOf:checkpointDirectory:checkpointInterval:_:)`` keeps checkpoints
    /// unless told otherwise: `checkpoints/` inside the store.
    public var defaultCheckpointDirectory: URL {
        environment.directory.appendingPathComponent("checkpoints")
    }

    /// How often ``withState(asOf:checkpointDirectory:checkpointInterval:_:)`` keeps a checkpoint.
    public static let checkpointIntervalDefault: UInt64 = 50_000

    /// Runs `body` with the projections' state as of entry `sequence`.
    ///
    /// The state is folded, in a scratch environment, from the nearest valid checkpoint at or
    /// below `sequence`; checkpoints are written at every multiple of `checkpointInterval` the
    /// fold passes, so later calls fold at most `checkpointInterval` entries. A checkpoint
    /// records the checksum of the entry it ends at and the projection versions, and one that no
    /// longer matches the journal is discarded.
    /// - Parameters:
    ///   - sequence: the last entry to include; clamped to the journal's last entry.
    ///   - checkpointDirectory: where checkpoints live; `checkpoints/` inside the store by default.
    ///   - body: reads the state through a ``ProjectionContext`` over a read-only transaction.
    /// - Complexity: O(checkpointInterval) entries folded plus one copy of a checkpoint, once
    ///   checkpoints exist below `sequence`.
    public func withState<T>(
        asOf sequence: UInt64, checkpointDirectory: URL? = nil,
        checkpointInterval: UInt64 = Journal.checkpointIntervalDefault,
        _ body: (_ state: ProjectionContext, _ sequence: UInt64) throws -> T
    ) throws -> T {
        let checkpoints = CheckpointStore(
            directory: checkpointDirectory ?? defaultCheckpointDirectory,
            signature: projectionSignature)
        let scratch = Self.scratchDirectoryURL()
        defer { try? FileManager.default.removeItem(at: scratch) }
        return try Self.guarded("cannot rebuild the state as of entry \(sequence)") {
            try read { reader in
                let target = min(sequence, try reader.lastSequence)
                let start = try checkpoints.restoreNearest(atOrBelow: target, of: reader, into: scratch)
                let destination = try Environment(directory: scratch, options: scratchOptions)
                let folded = try fold(
                    from: reader, startingAt: start + 1, upTo: target, into: destination, boundary: checkpointInterval,
                    reachedBoundary: { boundary in
                        try checkpoints.save(
                            destination, at: boundary, checksum: try Self.checksum(of: boundary, reader))
                    }, progress: nil)
                return try destination.read { transaction in
                    try body(ProjectionContext(transaction: transaction, databases: folded.databases), target)
                }
            }
        }
    }

    var scratchOptions: EnvironmentOptions {
        var scratchOptions = EnvironmentOptions()
        scratchOptions.flushesOnCommit = false
        scratchOptions.namedDatabaseCountMax = options.environment.namedDatabaseCountMax
        return scratchOptions
    }

    /// Names and versions of the projections, so a checkpoint built by other projections is not used.
    var projectionSignature: String {
        projections.map { "\($0.name)@\($0.version)" }.joined(separator: ",")
    }

    static func checksum(of sequence: UInt64, _ reader: JournalReader) throws -> UInt32 {
        try reader.transaction.withValue(reader.journal.entries, key: SequenceKey.encode(sequence)) { bytes in
            guard let bytes, bytes.count >= 4 else {
                throw JournalError(.gap, "journal entry \(sequence) is missing", sequence: sequence)
            }
            return bytes.loadLittleEndianUInt32(at: bytes.count - 4)
        }
    }
}

/// Checkpoints of projection state, one compact LMDB copy per checkpoint sequence:
/// `<directory>/<sequence>/data.mdb`, with a `checkpoint.meta` database naming what it is.
struct CheckpointStore {
    let directory: URL
    let signature: String

    static let metaDatabaseName = "checkpoint.meta"

    /// Copies the newest valid checkpoint at or below `sequence` into `scratch` and returns its
    /// sequence; 0 (and an empty `scratch`) when there is none.
    func restoreNearest(atOrBelow sequence: UInt64, of reader: JournalReader, into scratch: URL) throws -> UInt64 {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let candidates = names.compactMap(UInt64.init).filter { $0 > 0 && $0 <= sequence }.sorted(by: >)
        for candidate in candidates {
            let location = directory.appendingPathComponent(String(candidate))
            guard try isValid(location, sequence: candidate, reader: reader) else {
                try? FileManager.default.removeItem(at: location)
                continue
            }
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: location.appendingPathComponent("data.mdb"), to: scratch.appendingPathComponent("data.mdb"))
            return candidate
        }
        return 0
    }

    /// Writes a compact copy of `environment` as the checkpoint for `sequence`, unless one exists.
    func save(_ environment: Environment, at sequence: UInt64, checksum: UInt32) throws {
        let location = directory.appendingPathComponent(String(sequence))
        guard !FileManager.default.fileExists(atPath: location.path) else { return }
        let meta = try environment.database(named: Self.metaDatabaseName)
        try environment.write { transaction in
            try transaction.put(meta, key: Array("description".utf8), value: Array(describe(sequence, checksum).utf8))
        }
        // Copy to a temporary name and rename, so a crash never leaves a half-written checkpoint.
        let temporary = directory.appendingPathComponent("\(sequence).partial")
        try? FileManager.default.removeItem(at: temporary)
        try environment.copy(to: temporary, compact: true)
        try FileManager.default.moveItem(at: temporary, to: location)
    }

    private func isValid(_ location: URL, sequence: UInt64, reader: JournalReader) throws -> Bool {
        guard FileManager.default.fileExists(atPath: location.appendingPathComponent("data.mdb").path) else {
            return false
        }
        let expected = describe(sequence, try Journal.checksum(of: sequence, reader))
        let checkpoint = try Environment(directory: location)
        let meta = try checkpoint.database(named: Self.metaDatabaseName)
        let stored = try checkpoint.read { try $0.get(meta, key: Array("description".utf8)) }
        return stored == Array(expected.utf8)
    }

    private func describe(_ sequence: UInt64, _ checksum: UInt32) -> String {
        "sequence=\(sequence) checksum=\(checksum) projections=\(signature)"
    }
}
