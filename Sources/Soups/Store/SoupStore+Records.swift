import Determinism
import EventJournal
public import LosslessJSON

extension SoupStore {
    /// Saves new records, giving each a new `_soupEntryId` and `_soupLastModifiedDate`.
    ///
    /// - Returns: the records as stored, in the given order.
    /// - Throws: ``SoupError/Code/unknownSoup``, ``SoupError/Code/notAnObject``.
    /// - Complexity: one journal entry; O(records × indexes × log n).
    @discardableResult
    public func create(_ soup: String, _ records: [JSONValue]) throws -> [JSONValue] {
        try mutate { writer, state in try create(soup, records, writer: &writer, state: state) }
    }

    func create(_ soup: String, _ records: [JSONValue], writer: inout JournalWriter, state: SoupState) throws
        -> [JSONValue]
    {
        try checkBatch(records.count)
        let catalog = try state.requireSoup(soup)
        var nextEntryId = try state.meta(SoupDatabases.nextEntryIdKey, default: 1)
        let now = clock.now()
        let stored = try records.map { record in
            defer { nextEntryId += 1 }
            return try stamped(record, entryId: Int64(nextEntryId), at: now, soup: soup)
        }
        try save(stored, in: catalog, to: &writer)
        return stored
    }

    /// Saves one new record; see ``create(_:_:)->[JSONValue]``.
    @discardableResult
    public func create(_ soup: String, _ record: JSONValue) throws -> JSONValue {
        try create(soup, [record])[0]
    }

    /// Replaces the record with `entryId` by `record`, whole (no merge).
    ///
    /// - Returns: the record as stored.
    /// - Throws: ``SoupError/Code/unknownSoup``, ``SoupError/Code/unknownEntry``,
    ///   ``SoupError/Code/notAnObject``.
    @discardableResult
    public func update(_ soup: String, _ record: JSONValue, entryId: Int64) throws -> JSONValue {
        try mutate { writer, state in try update(soup, record, entryId: entryId, writer: &writer, state: state) }
    }

    func update(_ soup: String, _ record: JSONValue, entryId: Int64, writer: inout JournalWriter, state: SoupState)
        throws -> JSONValue
    {
        let catalog = try state.requireSoup(soup)
        guard try state.record(catalog.soupId, entryId) != nil else {
            throw SoupError(.unknownEntry, "soup '\(soup)' has no record with _soupEntryId \(entryId)")
        }
        let stored = try stamped(record, entryId: entryId, at: clock.now(), soup: soup)
        try save([stored], in: catalog, to: &writer)
        return stored
    }

    /// Creates or replaces records.
    ///
    /// With no `externalIdPath` (or `_soupEntryId`), a record carrying a `_soupEntryId`
    /// replaces that record and one without is created. With an external-id path, which must
    /// be indexed, a record replaces the one with the same value at that path, or is created
    /// when there is none; a record without a value there (missing or null) is refused, as
    /// SmartStore refuses it.
    /// - Returns: the records as stored, in the given order.
    /// - Throws: ``SoupError/Code/externalIdPathNotIndexed``, ``SoupError/Code/duplicateExternalId``
    ///   when two stored records share the value, ``SoupError/Code/invalidQuery`` for a record
    ///   without a value at the external-id path, ``SoupError/Code/unknownEntry``,
    ///   ``SoupError/Code/unknownSoup``, ``SoupError/Code/notAnObject``.
    @discardableResult
    public func upsert(_ soup: String, _ records: [JSONValue], externalIdPath: String? = nil) throws -> [JSONValue] {
        try mutate { writer, state in
            try upsert(soup, records, externalIdPath: externalIdPath, writer: &writer, state: state)
        }
    }

    func upsert(
        _ soup: String, _ records: [JSONValue], externalIdPath: String?, writer: inout JournalWriter, state: SoupState
    ) throws -> [JSONValue] {
        try checkBatch(records.count)
        let catalog = try state.requireSoup(soup)
        let path = externalIdPath == Self.entryIdField ? nil : externalIdPath
        if let path, catalog.index(on: path) == nil {
            throw SoupError(.externalIdPathNotIndexed, "soup '\(soup)' has no index on external-id path '\(path)'")
        }
        let now = clock.now()
        var stored: [JSONValue] = []
        for record in records {
            guard case .object = record else { throw Self.notAnObject(soup) }
            // Each record is its own entry so that later records of the batch see earlier ones.
            let engine = QueryEngine(state: state, soup: catalog)
            var entryId = record[Self.entryIdField]?.number?.int64Value
            if let path {
                // As SmartStore on both platforms: creating the record without a value would
                // make every later upsert of it a second copy. (SmartStore looks a JSON null
                // up as the text "null"; here null is no value, as JSON means it.)
                guard let value = SoupPath.project(record, path), value != .null else {
                    throw SoupError(
                        .invalidQuery, "For upsert with external ID path '\(path)', value cannot be empty")
                }
                entryId = try engine.uniqueId(path: path, value: value)
            } else if let id = entryId, try state.record(catalog.soupId, id) == nil {
                throw SoupError(.unknownEntry, "soup '\(soup)' has no record with _soupEntryId \(id)")
            }
            let id = try entryId ?? Int64(state.meta(SoupDatabases.nextEntryIdKey, default: 1))
            let saved = try stamped(record, entryId: id, at: now, soup: soup)
            try save([saved], in: catalog, to: &writer)
            stored.append(saved)
        }
        return stored
    }

    /// Creates or replaces one record; see ``upsert(_:_:externalIdPath:)->[JSONValue]``.
    @discardableResult
    public func upsert(_ soup: String, _ record: JSONValue, externalIdPath: String? = nil) throws -> JSONValue {
        try upsert(soup, [record], externalIdPath: externalIdPath)[0]
    }

    /// The records with the given `_soupEntryId`s, in the given order; unknown ids are skipped.
    /// - Throws: ``SoupError/Code/unknownSoup``.
    public func retrieve(_ soup: String, ids: [Int64]) throws -> [JSONValue] {
        try read { state in
            let catalog = try state.requireSoup(soup)
            return try ids.compactMap { try state.record(catalog.soupId, $0) }
        }
    }

    /// Deletes the records with the given `_soupEntryId`s; unknown ids are ignored.
    /// - Throws: ``SoupError/Code/unknownSoup``.
    public func delete(_ soup: String, ids: [Int64]) throws {
        try mutate { writer, state in try delete(soup, ids: ids, writer: &writer, state: state) }
    }

    func delete(_ soup: String, ids: [Int64], writer: inout JournalWriter, state: SoupState) throws {
        try checkBatch(ids.count)
        let catalog = try state.requireSoup(soup)
        let existing = try ids.filter { try state.record(catalog.soupId, $0) != nil }
        guard !existing.isEmpty else { return }
        try append(.deleted, soup: soup, Self.deletion(soup, existing), to: &writer)
    }

    /// Deletes every record the query matches, whatever its page size.
    /// - Returns: how many records were deleted.
    /// - Throws: what ``query(_:pageIndex:)`` throws for the spec.
    @discardableResult
    public func deleteByQuery(_ spec: QuerySpec) throws -> Int {
        if case .smart = spec.filter {
            throw SoupError(.invalidQuery, "a smart query gives rows, not records: deleteByQuery takes the other kinds")
        }
        return try mutate { writer, state in
            let catalog = try state.requireSoup(spec.soupName)
            let engine = QueryEngine(state: state, soup: catalog)
            var ids = try engine.filterIds(spec.filter)
            if ids == nil {
                var all: [Int64] = []
                try state.forEachRecordId(catalog.soupId) { entryId in
                    all.append(entryId)
                    return true
                }
                ids = all
            }
            let sorted = (ids ?? []).sorted()
            guard !sorted.isEmpty else { return 0 }
            try append(.deleted, soup: spec.soupName, Self.deletion(spec.soupName, sorted), to: &writer)
            return sorted.count
        }
    }

    /// The `_soupEntryId` of the record whose indexed value at `path` is `value`, if any.
    /// - Throws: ``SoupError/Code/noIndexForPath``, ``SoupError/Code/duplicateExternalId``
    ///   when several records have it, ``SoupError/Code/unknownSoup``.
    public func lookupSoupEntryId(_ soup: String, path: String, value: JSONValue) throws -> Int64? {
        try read { state in
            try QueryEngine(state: state, soup: state.requireSoup(soup)).uniqueId(path: path, value: value)
        }
    }

    // MARK: - Helpers

    func stamped(_ record: JSONValue, entryId: Int64, at time: WallTime, soup: String) throws -> JSONValue {
        guard case .object(var fields) = record else { throw Self.notAnObject(soup) }
        // One copy with room for both fields, rather than a copy and then a resize.
        fields.reserveCapacity(fields.count + 2)
        fields[Self.entryIdField] = .number(JSONNumber(entryId))
        fields[Self.lastModifiedDateField] = .number(JSONNumber(time.millisecondsSinceEpoch))
        return .object(fields)
    }

    /// Appends a `soup.saved` entry for `records`.
    ///
    /// Each record is serialized once: the payload is built from those bytes, and they and
    /// the records are handed to the fold of this entry (see `EntryHandoff`).
    func save(_ records: [JSONValue], in catalog: SoupCatalogEntry, to writer: inout JournalWriter) throws {
        guard !records.isEmpty else { return }
        let recordBytes = records.map { $0.serialized() }
        // The canonical serialization of {"records": [...], "soup": name}: keys in byte order.
        var payload = Array(#"{"records":["#.utf8)
        payload.reserveCapacity(recordBytes.reduce(64 + catalog.name.utf8.count) { $0 + $1.count + 1 })
        for (position, bytes) in recordBytes.enumerated() {
            if position > 0 { payload.append(UInt8(ascii: ",")) }
            payload += bytes
        }
        payload += #"],"soup":"#.utf8
        JSONValue.string(catalog.name).write(into: &payload)
        payload.append(UInt8(ascii: "}"))
        let value: JSONValue = ["soup": .string(catalog.name), "records": .array(records)]
        assert(payload == value.serialized(), "the saved payload must be the canonical serialization")
        handoff.offer(
            sequence: writer.nextSequence, payload: payload,
            value: SavedRecords(value: value, recordBytes: recordBytes))
        try writer.append(
            JournalEntry.Draft(
                kind: SoupEntryKind.saved.kind, header: ["soup": .string(catalog.name)], serializedJSON: payload))
    }

    func checkBatch(_ count: Int) throws {
        guard count <= Self.batchCountMax else {
            throw SoupError(.invalidQuery, "one call may save or delete at most \(Self.batchCountMax) records")
        }
    }

    static func notAnObject(_ soup: String) -> SoupError {
        SoupError(.notAnObject, "a record for soup '\(soup)' is not a JSON object")
    }

    static func deletion(_ soup: String, _ ids: [Int64]) -> JSONValue {
        ["soup": .string(soup), "ids": .array(ids.map { .number(JSONNumber($0)) })]
    }
}

extension QueryEngine {
    /// The one record whose value at `path` is `value`, `nil` when none.
    func uniqueId(path: String, value: JSONValue) throws -> Int64? {
        let ids = try filterIds(.exact(path: path, value: value)) ?? []
        guard ids.count <= 1 else {
            throw SoupError(
                .duplicateExternalId, "soup '\(soup.name)' has \(ids.count) records with '\(path)' = \(value)")
        }
        return ids.first
    }
}

extension SoupStore {
    /// Runs `body`'s writes, across any soups, as one all-or-nothing commit.
    ///
    /// ```swift
    /// try store.write { transaction in
    ///     let order = try transaction.createLocally("orders", ["Name": "O-1"])
    ///     try transaction.createLocally("lines", ["Order": order["Id"] ?? .null, "Qty": 2])
    ///     try transaction.updateLocally("accounts", entryId: accountId, changes: ["Open": true])
    /// }
    /// ```
    ///
    /// Every write stays its own journal entry, appended in one journal commit (decision 0206):
    /// a crash, a full disk, or an error thrown by a write or by `body` leaves none of them, and
    /// observers are woken once. Other writers wait until the commit; do not call this store's
    /// own write methods inside `body` (they would wait for the transaction): use the
    /// transaction's.
    ///
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws, unchanged (the writes are then undone), or a ``SoupError``
    ///   of the write that failed.
    public func write<T>(_ body: (SoupWriteTransaction) throws -> T) throws -> T {
        var bodyError: (any Error)?
        do {
            return try mutate { writer, state in
                try withUnsafeMutablePointer(to: &writer) { pointer in
                    let transaction = SoupWriteTransaction(store: self, writer: pointer, state: state)
                    defer { transaction.end() }
                    do {
                        return try body(transaction)
                    } catch {
                        bodyError = error
                        throw error
                    }
                }
            }
        } catch {
            throw bodyError ?? error
        }
    }
}
