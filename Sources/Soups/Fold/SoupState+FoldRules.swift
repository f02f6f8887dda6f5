import LMDBStore
package import LosslessJSON

// What a `SoupFoldRule` may do with the soups: find records by an indexed field, test the dirty
// set, store (or splice) and remove records, move `next-entry-id`, and keep notes per record.
// Everything else about the soups stays the projection's own.
extension SoupState {
    /// The next `_soupEntryId` the fold gives a new record.
    package func nextEntryId() throws -> UInt64 {
        try meta(SoupDatabases.nextEntryIdKey, default: 1)
    }

    /// Stores the next `_soupEntryId`; a rule that adds records must raise it past their ids
    /// (see ``RecordPlacement``).
    package func putNextEntryId(_ value: UInt64) throws {
        try putMeta(SoupDatabases.nextEntryIdKey, value)
    }

    /// Stores `record` under `entryId` in `soup`, replacing any record there.
    ///
    /// - Parameters:
    ///   - bytes: the record's serialization when the caller has it already: a fetched record
    ///     whose added fields were spliced into its bytes, `record` holding only the members
    ///     the soup indexes.
    ///   - lastModifiedDate: the stored record's `_soupLastModifiedDate` when `record` lacks it.
    ///   - placement: what the caller knows about where the record's key falls.
    ///   - prepared: the stored value of `bytes`, made beforehand with
    ///     ``preparedValues(_:soupId:halvesCountMin:)``; used while the dictionary it names is
    ///     the soup's current one. Requires `bytes`.
    package func storeRecord(
        _ record: JSONValue, bytes: [UInt8]? = nil, lastModifiedDate: Int64? = nil, entryId: Int64,
        in soup: SoupCatalogEntry, placement: RecordPlacement = .anywhere, prepared: PreparedRecordValue? = nil
    ) throws {
        try putRecord(
            record, bytes: bytes, lastModifiedDate: lastModifiedDate, entryId: entryId, in: soup, placement: placement,
            prepared: prepared)
    }

    /// Whether `soup` has an index on `path`.
    package func isIndexed(_ path: String, in soup: SoupCatalogEntry) -> Bool {
        soup.index(on: path) != nil
    }

    /// The lowest `_soupEntryId` of a record of `soup` whose indexed field `path` is `value`.
    ///
    /// One seek: keys are ordered by value, then by entry id, so the first key at or after
    /// `prefix · value` is the answer when it still holds that value.
    /// - Precondition: `soup` indexes `path` (``isIndexed(_:in:)``).
    package func lowestEntryId(indexed path: String, equalTo value: JSONValue, in soup: SoupCatalogEntry) throws
        -> Int64?
    {
        guard let index = soup.index(on: path) else { preconditionFailure("\(path) is not indexed") }
        guard !value.isNull, var operand = IndexValue.operand(value, for: index.spec.type, rounding: .exact) else {
            return nil
        }
        if index.spec.type == .hashed { operand = try operand.digested(in: transaction) }
        var prefix = SoupDatabases.indexPrefix(soup.soupId, index.id)
        operand.encode(into: &prefix)
        return try transaction.withCursor(databases.index) { cursor in
            guard let key = try cursor.seekKey(atLeast: prefix), key.count == prefix.count + 8,
                key.starts(with: prefix)
            else { return nil }
            return SoupDatabases.entryId(ofKey: key)
        }
    }

    /// Every `_soupEntryId` of a record of `soup` whose indexed field `path` is `value`, ascending.
    /// - Precondition: `soup` indexes `path` (``isIndexed(_:in:)``).
    package func entryIds(indexed path: String, equalTo value: JSONValue, in soup: SoupCatalogEntry) throws
        -> [Int64]
    {
        guard !value.isNull else { return [] }
        return try QueryEngine(state: self, soup: soup).filterIds(.exact(path: path, value: value))?.sorted() ?? []
    }

    /// The records of `soup` in the dirty set, in `_soupEntryId` order.
    package func dirtyRecords(in soup: SoupCatalogEntry) throws -> [JSONValue] {
        var records: [JSONValue] = []
        try transaction.withCursor(databases.dirty) { cursor in
            try cursor.forEach(in: .prefix(SoupDatabases.soupPrefix(soup.soupId))) { key, _ in
                if let record = try record(soup.soupId, SoupDatabases.entryId(ofKey: key)) { records.append(record) }
                return true
            }
        }
        return records
    }

    /// Makes `soup` keep, from now on, the base of every record a put makes dirty
    /// (``DirtyNote``); records dirty already have none.
    package func keepBases(in soup: SoupCatalogEntry) throws {
        guard !soup.keepsBases else { return }
        var kept = soup
        kept.keepsBases = true
        try putCatalogEntry(kept)
    }

    /// Replaces the note the dirty set keeps with the dirty record `entryId` (its base and
    /// open conflict); a rule that merges a server copy into a local change moves the base.
    /// - Precondition: the record is dirty (``isInDirtySet(_:_:)``).
    package func putDirtyNote(_ note: DirtyNote, _ entryId: Int64, in soupId: UInt32) throws {
        try transaction.put(databases.dirty, key: SoupDatabases.recordKey(soupId, entryId), value: note.encoded)
    }

    // MARK: - History

    /// Whether the fold reports what it does to the records of `soup` (``SoupFoldTrace``): a
    /// rule explains its decisions only then, so no other fold pays for the words.
    package func isTraced(_ soup: SoupCatalogEntry) -> Bool {
        trace?.soupName == soup.name
    }

    /// Says why the entry being folded wrote the record `entryId` of `soup`, removed it or left
    /// it as it is, when the fold is traced (``isTraced(_:)``).
    /// - Parameters:
    ///   - reason: what the fold did and why, in a few words ("fetched by sync 3").
    ///   - serverId: the value of the id field the rule matched the record by, if any.
    package func explain(
        _ entryId: Int64, in soup: SoupCatalogEntry, _ reason: @autoclosure () -> String,
        serverId: @autoclosure () -> String? = nil
    ) throws {
        guard let trace, trace.soupName == soup.name else { return }
        trace.explain(
            entryId, record: try record(soup.soupId, entryId), reason: reason(), serverId: serverId())
    }

    // MARK: - Notes per record

    /// Keeps `note` for the record `entryId` of `soup` until ``removeRecordNote(_:in:)``: what a
    /// rule must remember about a record between two entries (sync up's creates in flight). The
    /// note is the rule's; the record need not exist.
    package func putRecordNote(_ note: JSONValue, _ entryId: Int64, in soupId: UInt32) throws {
        try transaction.put(
            databases.recordNotes, key: SoupDatabases.recordKey(soupId, entryId), value: note.serialized())
    }

    /// Forgets the note of the record `entryId`, if any.
    package func removeRecordNote(_ entryId: Int64, in soupId: UInt32) throws {
        _ = try transaction.delete(databases.recordNotes, key: SoupDatabases.recordKey(soupId, entryId))
    }

    /// The notes of a soup's records, by `_soupEntryId`, ascending.
    package func recordNotes(in soupId: UInt32) throws -> [(entryId: Int64, note: JSONValue)] {
        var notes: [(entryId: Int64, note: JSONValue)] = []
        try transaction.withCursor(databases.recordNotes) { cursor in
            try cursor.forEach(in: .prefix(SoupDatabases.soupPrefix(soupId))) { key, bytes in
                notes.append((SoupDatabases.entryId(ofKey: key), try Self.parse(bytes)))
                return true
            }
        }
        return notes
    }
}
