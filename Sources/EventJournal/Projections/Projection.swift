public import LMDBStore
public import LosslessJSON
import Synchronization

/// State derived from the journal: a deterministic fold of its entries.
///
/// A projection keeps its state in its own named databases, in the projections' environment,
/// and folds each entry in the write that appends it: the entry commits to the journal (synced)
/// and the projection's changes right after it, so readers never see one without the other and
/// the projections are always the fold of a prefix of the journal (decision 0003).
///
/// ```swift
/// struct KindCounts: Projection {
///     let name = "kind-counts"
///     let version = 1
///     let databaseNames = ["kind-counts"]
///     func apply(_ entry: JournalEntry, in context: ProjectionContext) throws { … }
/// }
/// ```
///
/// Rules for `apply`: it reads nothing but `entry` and the projection's own databases; never
/// the clock, the network or randomness. Anything like that is decided before appending and
/// recorded in the entry. Bump ``version`` whenever the fold changes: the journal then
/// rebuilds the projection from the entries when it opens. A compacted journal no longer holds
/// its first entries, so a store that was compacted can only be brought to the new version by
/// ``migrate(from:in:)`` (decision 0010).
public protocol Projection: Sendable {
    /// A unique name; it keys the projection's version in the journal's metadata.
    var name: String { get }
    /// The fold's version. A change triggers a rebuild on open.
    var version: Int { get }
    /// The named databases that hold this projection's state. Names starting with `journal.`
    /// are reserved.
    var databaseNames: [String] { get }

    /// Folds one entry into the projection's state.
    ///
    /// - Throws: an error to refuse the entry; the whole append is then rolled back.
    /// - Complexity: should be O(log n) per entry in the size of the state, since it runs on
    ///   every append.
    func apply(_ entry: JournalEntry, in context: ProjectionContext) throws

    /// What decodes entries for this projection ahead of its fold, on another thread, when a
    /// fold runs over many stored entries (a rebuild, a recovery, `verify`, a compaction's
    /// anchor), or `nil` when nothing is worth decoding ahead. The default is `nil`.
    ///
    /// It is asked once per fold transaction, before the transaction's first entry, and may
    /// read the state folded so far to decide how to decode (a soup's indexed paths). An entry
    /// later in the transaction may change that state, so ``apply(_:decoded:in:)`` must check
    /// that what was decoded still fits, and fold the entry as ``apply(_:in:)`` does otherwise.
    /// - Parameter context: the state folded so far, read-only here.
    func entryDecoder(in context: ProjectionContext) throws -> (any ProjectionEntryDecoder)?

    /// Folds one entry with what ``entryDecoder(in:)``'s decoder gave for it (`nil` when it
    /// gave nothing or was not used); the state must be exactly what ``apply(_:in:)`` gives.
    /// The default ignores `decoded`.
    /// - Parameters:
    ///   - entry: the entry to fold.
    ///   - decoded: what the decoder returned for `entry`.
    ///   - context: the state to fold into.
    /// - Throws: as ``apply(_:in:)``.
    func apply(_ entry: JournalEntry, decoded: (any Sendable)?, in context: ProjectionContext) throws

    /// Empties the projection's state before a rebuild. The default clears every database in
    /// ``databaseNames``.
    func reset(in context: ProjectionContext) throws

    /// Describes the projection's state for people and tools (`journal-replay state`).
    ///
    /// The default lists every database key by key. Projections override it to show their
    /// domain (soups, flags, watermarks).
    /// - Parameters:
    ///   - context: the state to describe.
    ///   - filter: narrows the description, for example `["soup": "accounts"]`; projections
    ///     ignore keys they do not know.
    func describeState(in context: ProjectionContext, filter: [String: String]) throws -> JSONValue

    /// Whether `stored` and `rebuilt`, values of `key` in database `name` whose bytes differ,
    /// hold the same state.
    ///
    /// `verify` and `diff` compare the values of two states byte for byte, and ask this only
    /// where the bytes differ. A projection whose state has more than one encoding (a
    /// compressed value, whose bytes depend on the compressor's version) says here when two are
    /// the same state, so a library upgrade is not reported as a divergence. A value that
    /// cannot be read is never the same state. The default is `false`.
    /// - Parameters:
    ///   - name: one of ``databaseNames``.
    ///   - key: the key both values are stored under.
    ///   - stored: the value in `storedState`.
    ///   - storedState: the state `verify` checks, or this journal's in `diff`.
    ///   - rebuilt: the value in `rebuiltState`.
    ///   - rebuiltState: the state folded from the journal, or the other journal's in `diff`.
    func holdSameState(
        database name: String, key: [UInt8], stored: [UInt8], in storedState: ProjectionContext,
        rebuilt: [UInt8], in rebuiltState: ProjectionContext
    ) throws -> Bool

    /// The oldest entry this projection's state still refers to and wants kept, or `nil`.
    ///
    /// Compaction never removes it or any later entry, whatever the ``RetentionPolicy``, so
    /// support can still read it: an upload whose outcome is unknown keeps its intent. The
    /// default is `nil`. It must be cheap: compaction asks it once per run.
    func oldestNeededSequence(in context: ProjectionContext) throws -> UInt64?

    /// The earlier versions whose state ``migrate(from:in:)`` brings to ``version`` in place.
    ///
    /// The default is none: a store whose history was compacted then refuses to open with a
    /// new version, since the rebuild it would need folds from entries that are gone.
    var migratableVersions: Set<Int> { get }

    /// Brings state written by `version` of this fold to ``version`` in place, without the
    /// journal.
    ///
    /// Only a store that cannot rebuild (its history was compacted) migrates; every other store
    /// rebuilds, which is exact by definition. So a migration should give the state the new
    /// fold would have given, and where that needs entries that are gone, the closest state the
    /// old one determines, documented. It runs on the live projections and on every
    /// checkpoint, in one write each, and must read nothing but `context`.
    /// - Parameters:
    ///   - version: the version that wrote the state, one of ``migratableVersions``.
    ///   - context: the state to migrate, writable.
    func migrate(from version: Int, in context: ProjectionContext) throws
}

extension Projection {
    public func describeState(in context: ProjectionContext, filter: [String: String]) throws -> JSONValue {
        var databases: [String: JSONValue] = [:]
        for name in databaseNames {
            databases[name] = try ProjectionStateDump.describe(context.database(named: name), in: context.transaction)
        }
        return .object(databases)
    }

    public func oldestNeededSequence(in context: ProjectionContext) throws -> UInt64? {
        nil
    }

    public func holdSameState(
        database name: String, key: [UInt8], stored: [UInt8], in storedState: ProjectionContext,
        rebuilt: [UInt8], in rebuiltState: ProjectionContext
    ) throws -> Bool {
        false
    }

    public var migratableVersions: Set<Int> { [] }

    public func entryDecoder(in context: ProjectionContext) throws -> (any ProjectionEntryDecoder)? {
        nil
    }

    public func apply(_ entry: JournalEntry, decoded: (any Sendable)?, in context: ProjectionContext) throws {
        try apply(entry, in: context)
    }

    public func migrate(from version: Int, in context: ProjectionContext) throws {
        throw JournalError(
            .needsMigration, "projection \(name) has no migration from version \(version) to \(self.version)")
    }

    public func reset(in context: ProjectionContext) throws {
        for name in databaseNames {
            try context.transaction.clear(context.database(named: name))
        }
    }
}

/// What a projection may touch while it applies an entry: the write transaction and its own
/// databases.
public struct ProjectionContext {
    /// The transaction the entry is being appended in.
    public let transaction: Transaction
    let databases: [String: Database]
    let handleCache: ProjectionHandleCache

    init(transaction: Transaction, databases: [String: Database], handleCache: ProjectionHandleCache) {
        self.transaction = transaction
        self.databases = databases
        self.handleCache = handleCache
    }

    /// The handles of type `Handles` that `make` resolves from database names, made once per
    /// environment and then reused.
    ///
    /// A fold looks its databases up for every entry; by name that is a string hash each, a
    /// tenth of a soup fold. Reserved for projections: `make` must depend only on the context's
    /// databases.
    package func handles<Handles: Sendable>(_ make: (ProjectionContext) -> Handles) -> Handles {
        handleCache.handles { make(self) }
    }

    /// The handle of one of the projection's databases.
    public func database(named name: String) -> Database {
        guard let database = databases[name] else {
            preconditionFailure("database \(name) is not declared in any projection's databaseNames")
        }
        return database
    }
}

/// Typed database handles resolved once per projection environment; see
/// ``ProjectionContext/handles(_:)``.
final class ProjectionHandleCache: Sendable {
    private let resolved = Mutex<[ObjectIdentifier: any Sendable]>([:])

    func handles<Handles: Sendable>(_ make: () -> Handles) -> Handles {
        let key = ObjectIdentifier(Handles.self)
        if let cached = resolved.withLock({ $0[key] }) as? Handles { return cached }
        let made = make()
        resolved.withLock { $0[key] = made }
        return made
    }
}
