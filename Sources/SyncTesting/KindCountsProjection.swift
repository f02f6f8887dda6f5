public import EventJournal
import LMDBStore

/// A minimal projection for tests and benchmarks: how many entries of each kind, and the
/// sequence of the last one.
///
/// It is enough to prove the same-transaction rule: after any crash its counts must equal a
/// count over the journal's entries.
public struct KindCountsProjection: Projection {
    public let name = "kind-counts"
    public let version: Int
    public let databaseNames = [Self.databaseName]

    /// The database holding `kind → (count, last sequence)`.
    public static let databaseName = "test.kind-counts"

    public let migratableVersions: Set<Int>

    /// The key a migration leaves in the counts: `migrated-from-<version>`, counted once per
    /// state migrated, so tests see which states (live, checkpoints) a migration reached.
    public static func migrationMarker(from version: Int) -> String {
        "migrated-from-\(version)"
    }

    /// Creates the projection; change `version` to force a rebuild on open.
    /// - Parameters:
    ///   - version: the fold's version.
    ///   - migratableVersions: the earlier versions it migrates from in place, leaving a
    ///     ``migrationMarker(from:)`` count.
    public init(version: Int = 1, migratableVersions: Set<Int> = []) {
        self.version = version
        self.migratableVersions = migratableVersions
    }

    public func migrate(from version: Int, in context: ProjectionContext) throws {
        try context.transaction.put(
            context.database(named: Self.databaseName), key: Array(Self.migrationMarker(from: version).utf8),
            value: Self.encode(count: 1, last: 0))
    }

    public func apply(_ entry: JournalEntry, in context: ProjectionContext) throws {
        let database = context.database(named: Self.databaseName)
        let key = Array(entry.kind.rawValue.utf8)
        let count = try context.transaction.get(database, key: key).map(Self.decodeCount) ?? 0
        try context.transaction.put(database, key: key, value: Self.encode(count: count + 1, last: entry.sequence))
    }

    /// The counts stored by this projection.
    public static func counts(in reader: JournalReader) throws -> [String: UInt64] {
        try counts(in: reader.projectionContext)
    }

    /// The counts by kind in a projection state, as EventJournal's
    /// `Journal.withState(asOf:checkpointDirectory:checkpointInterval:_:)` gives one.
    public static func counts(in state: ProjectionContext) throws -> [String: UInt64] {
        var counts: [String: UInt64] = [:]
        try state.transaction.withCursor(state.database(named: databaseName)) { cursor in
            try cursor.forEach { key, value in
                counts[String(decoding: key, as: UTF8.self)] = decodeCount(value)
                return true
            }
        }
        return counts
    }

    static func encode(count: UInt64, last: UInt64) -> [UInt8] {
        withUnsafeBytes(of: count.bigEndian) { Array($0) } + withUnsafeBytes(of: last.bigEndian) { Array($0) }
    }

    static func decodeCount(_ bytes: [UInt8]) -> UInt64 {
        bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
