public import Determinism
public import EventJournal
import LMDBStore
import LosslessJSON
import Synchronization

/// A SmartStore-compatible record store whose soups are a projection of a journal.
///
/// Every change is one journal entry (or a few, in one write transaction) that the
/// ``SoupProjection`` folds into records, indexes and the dirty set in the write that appends it.
/// The store decides ids and times before appending, from the projection's state and the
/// injected clock, so that the fold stays a pure function of the journal.
///
/// ```swift
/// try store.registerSoup("accounts", indexSpecs: [IndexSpec(path: "Id", type: .string)])
/// let saved = try store.create("accounts", ["Id": "001", "Name": "Acme"])
/// let page = try store.query(.exact("accounts", path: "Id", value: "001"))
/// ```
///
/// Every method throws ``SoupError`` and, when it throws, leaves the store unchanged.
public final class SoupStore: Sendable {
    /// The journal the soups are folded from.
    public let journal: Journal
    let clock: any WallClock
    let idGenerator: any IDGenerator
    /// The soup projection's hand-over point for the records of the saves this store appends.
    let handoff: EntryHandoff<SavedRecords>
    /// The soup projection's fold rules, which say which soups their entries touch.
    let foldRules: [any SoupFoldRule]
    /// The soup projection's decoded catalog entries.
    let catalogCache: CatalogCache
    /// For each soup, by soup id, the span of `_soupEntryId`s it must reach before the store
    /// looks again at whether it is due for a dictionary (``compressRecordsIfDue()``).
    let compressionLookAgain = Mutex<[UInt32: Int]>([:])

    /// The record field holding the id SmartStore assigns.
    public static let entryIdField = "_soupEntryId"
    /// The record field holding the time of the last save, in milliseconds since the epoch.
    public static let lastModifiedDateField = "_soupLastModifiedDate"
    /// The longest soup name accepted, in UTF-8 bytes.
    public static let soupNameLengthMaxBytes = 255
    /// The most index specs one soup may have.
    public static let indexCountMax = 256
    /// The most records one call may save or delete.
    public static let batchCountMax = 100_000

    /// Creates a store over `journal`, which must have been opened with a ``SoupProjection``.
    ///
    /// - Parameters:
    ///   - journal: the journal the store writes its entries to and reads its soups from.
    ///   - clock: gives `_soupLastModifiedDate`.
    ///   - idGenerator: gives the numbers of local ids (`local_<n>`) in ``createLocally(_:_:idPath:)``.
    public init(journal: Journal, clock: any WallClock, idGenerator: any IDGenerator) {
        guard let projection = journal.projections.lazy.compactMap({ $0 as? SoupProjection }).first else {
            preconditionFailure("the journal was opened without a SoupProjection")
        }
        self.journal = journal
        handoff = projection.handoff
        foldRules = projection.rules
        catalogCache = projection.catalogCache
        self.clock = clock
        self.idGenerator = idGenerator
    }

    // MARK: - Soups

    /// Registers a soup; does nothing when a soup with that name exists, even with other specs.
    /// - Throws: ``SoupError/Code/emptyIndexSpecs``, ``SoupError/Code/invalidIndexSpec`` or
    ///   ``SoupError/Code/invalidSoupName``.
    public func registerSoup(_ name: String, indexSpecs: [IndexSpec]) throws {
        try Self.validate(soupName: name)
        try Self.validate(indexSpecs, soup: name)
        try requireEncryption(for: indexSpecs, soup: name)
        try mutate { writer, state in
            guard try state.catalogEntry(name) == nil else { return }
            try appendRegistration(name, indexSpecs, state: state, to: &writer)
        }
    }

    func appendRegistration(
        _ name: String, _ indexSpecs: [IndexSpec], state: SoupState, to writer: inout JournalWriter
    ) throws {
        guard let soupId = UInt32(exactly: try state.meta(SoupDatabases.nextSoupIdKey, default: 1)) else {
            throw SoupError(.storage, "no soup ids are left for soup '\(name)'")
        }
        let indexes = indexSpecs.enumerated().map {
            SoupCatalogEntry.CatalogIndex(spec: $0.element, id: UInt16($0.offset))
        }
        let entry = SoupCatalogEntry(name: name, soupId: soupId, indexes: indexes, nextIndexId: UInt16(indexes.count))
        try append(.registered, soup: name, entry.json, to: &writer)
    }

    /// Whether a soup named `name` exists.
    public func hasSoup(_ name: String) throws -> Bool {
        try read { try $0.catalogEntry(name) != nil }
    }

    /// The names of every soup, sorted byte-wise.
    public func soupNames() throws -> [String] {
        try read { try $0.soupNames() }
    }

    /// The index specs of a soup, in the order they were given.
    /// - Throws: ``SoupError/Code/unknownSoup``.
    public func indexSpecs(of soup: String) throws -> [IndexSpec] {
        try read { try $0.requireSoup(soup).specs }
    }

    /// Changes a soup's indexes.
    ///
    /// Indexes whose (path, type) pair is kept keep their entries. New ones are computed from
    /// the records when `reIndex` is `true`; otherwise every record has null in them until
    /// it is saved again, as in SmartStore.
    /// - Throws: ``SoupError/Code/unknownSoup``, ``SoupError/Code/emptyIndexSpecs``,
    ///   ``SoupError/Code/invalidIndexSpec``.
    /// - Complexity: O(n) in the soup's records.
    public func alterSoup(_ name: String, indexSpecs: [IndexSpec], reIndex: Bool) throws {
        try Self.validate(indexSpecs, soup: name)
        try requireEncryption(for: indexSpecs, soup: name)
        try mutate { writer, state in
            let altered = try state.requireSoup(name).altered(to: indexSpecs)
            guard case .object(var payload) = altered.json else { return }
            payload["reIndex"] = .bool(reIndex)
            try append(.altered, soup: name, .object(payload), to: &writer)
        }
    }

    /// Recomputes the indexes on `paths` from the records.
    /// - Throws: ``SoupError/Code/unknownSoup``, ``SoupError/Code/noIndexForPath``.
    /// - Complexity: O(n) in the soup's records.
    public func reIndexSoup(_ name: String, paths: [String]) throws {
        try mutate { writer, state in
            let soup = try state.requireSoup(name)
            for path in paths where soup.index(on: path) == nil {
                throw SoupError(.noIndexForPath, "soup '\(name)' has no index on '\(path)'")
            }
            try append(
                .reIndexed, soup: name, ["soup": .string(name), "paths": .array(paths.map(JSONValue.string))],
                to: &writer)
        }
    }

    /// Removes every record of a soup and keeps the soup. `_soupEntryId`s are not reused.
    /// - Throws: ``SoupError/Code/unknownSoup``.
    public func clearSoup(_ name: String) throws {
        try mutate { writer, state in
            _ = try state.requireSoup(name)
            try append(.cleared, soup: name, ["soup": .string(name)], to: &writer)
        }
    }

    /// Removes a soup and its records; does nothing when there is no such soup.
    public func dropSoup(_ name: String) throws {
        try mutate { writer, state in
            guard try state.catalogEntry(name) != nil else { return }
            try append(.dropped, soup: name, ["soup": .string(name)], to: &writer)
        }
    }

    /// Removes every soup and its records in one write, as SmartStore's `dropAllSoups`.
    ///
    /// One `soup.dropped` entry per soup, all appended in one transaction: another process sees
    /// every soup or none. Syncs that name the soups are kept, as with ``dropSoup(_:)``.
    ///
    /// - Returns: the names of the soups removed, in name order.
    @discardableResult
    public func dropAllSoups() throws -> [String] {
        try mutate { writer, state in
            let names = try state.soupNames()
            for name in names { try append(.dropped, soup: name, ["soup": .string(name)], to: &writer) }
            return names
        }
    }

    // MARK: - Plumbing

    func read<T>(_ body: (SoupState) throws -> T) throws -> T {
        do {
            return try journal.read { reader in
                try body(
                    SoupState(
                        transaction: reader.transaction, databases: SoupDatabases.of(reader.projectionContext),
                        catalogCache: catalogCache))
            }
        } catch {
            throw Self.wrap(error)
        }
    }

    func mutate<T>(_ body: (inout JournalWriter, SoupState) throws -> T) throws -> T {
        let result: T
        do {
            result = try journal.write { writer in
                let state = SoupState(
                    transaction: writer.transaction, databases: SoupDatabases.of(writer.projectionContext),
                    catalogCache: catalogCache)
                return try body(&writer, state)
            }
        } catch {
            throw Self.wrap(error)
        }
        // After the commit: the write is durable whatever becomes of a dictionary.
        compressRecordsIfDue()
        return result
    }

    func append(_ kind: SoupEntryKind, soup: String, _ payload: JSONValue, to writer: inout JournalWriter) throws {
        try writer.append(JournalEntry.Draft(kind: kind.kind, header: ["soup": .string(soup)], json: payload))
    }

    static func wrap(_ error: any Error) -> SoupError {
        if let error = error as? SoupError { return error }
        return SoupError(.storage, "the soup store failed: \(error)", cause: error)
    }

    /// Refuses ``IndexType/hashed`` indexes on a plaintext store: there is no key to hash with.
    private func requireEncryption(for specs: [IndexSpec], soup: String) throws(SoupError) {
        guard !journal.isEncrypted, let hashed = specs.first(where: { $0.type == .hashed }) else { return }
        throw SoupError(
            .invalidIndexSpec,
            "the index on '\(hashed.path)' of soup '\(soup)' is hashed, which needs an encrypted store: "
                + "open the store with a key, or index it as a string")
    }

    static func validate(soupName: String) throws(SoupError) {
        guard !soupName.isEmpty, soupName.utf8.count <= soupNameLengthMaxBytes else {
            throw SoupError(.invalidSoupName, "a soup name must be 1 to \(soupNameLengthMaxBytes) bytes long")
        }
    }

    static func validate(_ specs: [IndexSpec], soup: String) throws(SoupError) {
        guard !specs.isEmpty else {
            throw SoupError(.emptyIndexSpecs, "soup '\(soup)' needs at least one index spec")
        }
        guard specs.count <= indexCountMax else {
            throw SoupError(.invalidIndexSpec, "soup '\(soup)' has more than \(indexCountMax) index specs")
        }
        var seen = Set<IndexSpec>()
        for spec in specs {
            guard !spec.path.isEmpty else {
                throw SoupError(.invalidIndexSpec, "an index of soup '\(soup)' has an empty path")
            }
            guard seen.insert(spec).inserted else {
                throw SoupError(.invalidIndexSpec, "soup '\(soup)' indexes '\(spec.path)' as \(spec.type) twice")
            }
        }
    }
}
