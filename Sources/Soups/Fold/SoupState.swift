import LMDBStore
package import LosslessJSON

/// The soup projection's state seen through one transaction: what both the fold and the
/// store's reads use, so that they agree on the layout.
package struct SoupState {
    let transaction: Transaction
    let databases: SoupDatabases
    /// Decoded catalog entries shared between transactions, or `nil` to decode every time.
    var catalogCache: CatalogCache? = nil
    /// Where a traced fold reports each change of a record (``SoupFoldTrace``).
    var trace: SoupFoldTrace? = nil

    // MARK: - Reading

    package func catalogEntry(_ soup: String) throws -> SoupCatalogEntry? {
        // No soup has a name the store refuses; an empty one is not even a key LMDB accepts.
        guard !soup.isEmpty, soup.utf8.count <= SoupStore.soupNameLengthMaxBytes else { return nil }
        let key = Array(soup.utf8)
        var sealed: [UInt8]?
        if let catalogCache {
            // The stored bytes as they are, unopened: equal to those of a remembered entry, they
            // were opened and checked before (see `CatalogCache`).
            let hit = try transaction.withValue(databases.catalog.unsealed, key: key) { stored -> SoupCatalogEntry? in
                guard let stored else { return nil }
                if let entry = catalogCache.entry(soup, sealed: stored) { return entry }
                sealed = Array(stored)
                return nil
            }
            if let hit { return hit }
            guard sealed != nil else { return nil }
        }
        let entry = try transaction.withValue(databases.catalog, key: key) { stored in
            try stored.map { try SoupCatalogEntry(json: Self.parse(Array($0))) }
        }
        if let catalogCache, let entry, let sealed { catalogCache.remember(entry, for: soup, sealed: sealed) }
        return entry
    }

    /// The catalog entry of `soup`, or ``SoupError/Code/unknownSoup``.
    package func requireSoup(_ soup: String) throws -> SoupCatalogEntry {
        guard let entry = try catalogEntry(soup) else { throw SoupError(.unknownSoup, "no soup named '\(soup)'") }
        return entry
    }

    package func soupNames() throws -> [String] {
        var names: [String] = []
        try transaction.withCursor(databases.catalog) { cursor in
            try cursor.forEach { key, _ in
                names.append(String(decoding: key, as: UTF8.self))
                return true
            }
        }
        return names
    }

    func meta(_ key: [UInt8], default defaultValue: UInt64) throws -> UInt64 {
        try meta(key) ?? defaultValue
    }

    /// A stored counter, or `nil` when none is stored.
    func meta(_ key: [UInt8]) throws -> UInt64? {
        try transaction.withValue(databases.meta, key: key) { $0.map(readBigEndian) }
    }

    package func record(_ soupId: UInt32, _ entryId: Int64) throws -> JSONValue? {
        try recordJSON(soupId, entryId).map(Self.parse)
    }

    /// Whether the record is in the dirty set, which holds exactly the stored records that
    /// ``LocalFlags/isDirty(_:)`` calls dirty, without reading the record.
    package func isInDirtySet(_ soupId: UInt32, _ entryId: Int64) throws -> Bool {
        try transaction.withValue(databases.dirty, key: SoupDatabases.recordKey(soupId, entryId)) { $0 != nil }
    }

    /// What the dirty set keeps with the record (``DirtyNote``), or `nil` when it is clean.
    package func dirtyNote(_ soupId: UInt32, _ entryId: Int64) throws -> DirtyNote? {
        try transaction.get(databases.dirty, key: SoupDatabases.recordKey(soupId, entryId)).map(DirtyNote.init)
    }

    /// The dirty records of a soup that have a note with a base or a conflict, by `_soupEntryId`.
    package func dirtyNotes(in soupId: UInt32) throws -> [(entryId: Int64, note: DirtyNote)] {
        var notes: [(entryId: Int64, note: DirtyNote)] = []
        try transaction.withCursor(databases.dirty) { cursor in
            try cursor.forEach(in: .prefix(SoupDatabases.soupPrefix(soupId))) { key, bytes in
                if !bytes.isEmpty { notes.append((SoupDatabases.entryId(ofKey: key), try DirtyNote(decoding: bytes))) }
                return true
            }
        }
        return notes
    }

    /// Visits the records of a soup in `_soupEntryId` order until `body` returns `false`.
    package func forEachRecord(_ soupId: UInt32, _ body: (Int64, JSONValue) throws -> Bool) throws {
        try transaction.withCursor(databases.records) { cursor in
            try cursor.forEach(in: .prefix(SoupDatabases.soupPrefix(soupId))) { key, value in
                try body(SoupDatabases.entryId(ofKey: key), Self.parse(json(ofStored: value, soupId: soupId)))
            }
        }
    }

    /// Visits the entry ids of a soup in order until `body` returns `false`, without
    /// reading the records.
    func forEachRecordId(_ soupId: UInt32, _ body: (Int64) throws -> Bool) throws {
        try transaction.withCursor(databases.records) { cursor in
            try cursor.forEach(in: .prefix(SoupDatabases.soupPrefix(soupId))) { key, _ in
                try body(SoupDatabases.entryId(ofKey: key))
            }
        }
    }

    static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        do {
            return try JSONValue(parsing: bytes)
        } catch {
            throw SoupError(.storage, "stored soup JSON is malformed: \(error)", cause: error)
        }
    }

    // MARK: - Writing (the fold only)

    func putMeta(_ key: [UInt8], _ value: UInt64) throws {
        var bytes: [UInt8] = []
        appendBigEndian(value, to: &bytes)
        try transaction.put(databases.meta, key: key, value: bytes)
    }

    func putCatalogEntry(_ entry: SoupCatalogEntry) throws {
        try transaction.put(databases.catalog, key: Array(entry.name.utf8), value: entry.json.serialized())
    }

    /// Stores `record` under `entryId`, replacing the old record and its index entries.
    ///
    /// - Parameters:
    ///   - bytes: the record's serialization when the caller has it already.
    ///   - indexEntries: the record's index entries in `soup` when the caller has them already.
    ///   - lastModifiedDate: the stored record's `_soupLastModifiedDate` when `record` lacks
    ///     it (a fetched record whose bookkeeping fields are spliced into `bytes`).
    ///   - placement: what the caller knows about where the record's key falls.
    ///   - prepared: the stored value of `bytes`, made beforehand (decision 0034).
    func putRecord(
        _ record: JSONValue, bytes: [UInt8]? = nil, indexEntries: IndexEntries? = nil, lastModifiedDate: Int64? = nil,
        entryId: Int64, in soup: SoupCatalogEntry, placement: RecordPlacement = .anywhere,
        prepared: PreparedRecordValue? = nil
    ) throws {
        precondition(prepared == nil || bytes != nil, "a prepared value stands for the record's given bytes")
        let replacing = placement == .anywhere
        let recordKey = SoupDatabases.recordKey(soup.soupId, entryId)
        // Skipping the old keys is only right if there are none: see `RecordPlacement`.
        assert(replacing || (try? transaction.get(databases.recordKeys, key: recordKey)) == nil, "not a new record")
        var entries =
            try indexEntries
            ?? IndexEntries.keys(for: record, entryId: entryId, in: soup, only: nil, transaction: transaction)
        let modified = lastModifiedDate ?? Self.lastModifiedDate(of: record)
        // Before the record is written: a list without a creation date takes the old record's.
        if replacing { try replaceIndexEntries(with: entries, recordKey: recordKey, modified: modified) }
        let isDirty = LocalFlags.isDirty(record)
        // In a soup that keeps bases, a record becoming dirty keeps the copy it had, its base
        // (`DirtyNote`); one already dirty keeps the note it has.
        let note: [UInt8]? =
            if try !isDirty || (replacing && isInDirtySet(soup.soupId, entryId)) {
                nil
            } else if replacing, soup.keepsBases {
                try recordJSON(soup.soupId, entryId).map(DirtyNote.encoded(baseBytes:)) ?? []
            } else {
                // Without bases, the value of every key stays empty, as it always was.
                []
            }
        // Appending skips the search and, above all, fills pages instead of splitting them in halves.
        let options: PutOptions = placement == .last ? .append : []
        let value = try storedValue(bytes ?? record.serialized(), soupId: soup.soupId, prepared: prepared)
        try transaction.put(databases.records, key: recordKey, value: value, options: options)
        if !replacing {
            entries.createdDate = modified
            try writeIndexEntries(entries, soup, entryId, options: options)
        }
        if let note {
            try transaction.put(databases.dirty, key: recordKey, value: note)
        } else if !isDirty, replacing {
            _ = try transaction.delete(databases.dirty, key: recordKey)
        }
        if let trace, trace.soupName == soup.name {
            // `record` may hold only some members when its bytes are given.
            trace.changed(entryId, to: try bytes.map(Self.parse) ?? record)
        }
    }

    /// A record's `_soupLastModifiedDate`, in milliseconds.
    static func lastModifiedDate(of record: JSONValue) -> Int64? {
        guard let number = record[SoupStore.lastModifiedDateField]?.number else { return nil }
        return number.int64Value ?? IndexValue.integer(of: number)
    }

    package func removeRecord(_ soupId: UInt32, _ entryId: Int64) throws {
        let recordKey = SoupDatabases.recordKey(soupId, entryId)
        if let trace, try transaction.get(databases.records, key: recordKey) != nil,
            try catalogEntry(trace.soupName)?.soupId == soupId
        {
            trace.changed(entryId, to: nil)
        }
        try removeIndexEntries(soupId, entryId)
        _ = try transaction.delete(databases.records, key: recordKey)
        _ = try transaction.delete(databases.recordKeys, key: recordKey)
        _ = try transaction.delete(databases.dirty, key: recordKey)
        _ = try transaction.delete(databases.recordNotes, key: recordKey)
    }

    /// Removes every record of a soup.
    func removeAllRecords(_ soupId: UInt32) throws {
        var entryIds: [Int64] = []
        try forEachRecordId(soupId) { entryId in
            entryIds.append(entryId)
            return true
        }
        for entryId in entryIds {
            try removeRecord(soupId, entryId)
        }
    }

    func indexEntries(_ soupId: UInt32, _ entryId: Int64) throws -> IndexEntries {
        let bytes = try transaction.get(databases.recordKeys, key: SoupDatabases.recordKey(soupId, entryId))
        return bytes.map(IndexEntries.init(decoding:)) ?? IndexEntries()
    }

    func removeIndexEntries(_ soupId: UInt32, _ entryId: Int64) throws {
        let entries = try indexEntries(soupId, entryId)
        for key in entries.indexKeys { _ = try transaction.delete(databases.index, key: key) }
        for key in entries.tokenKeys { _ = try transaction.delete(databases.fullText, key: key) }
    }

    /// Replaces a stored record's index and token keys by `newEntries`, touching only the keys
    /// that change: an edit of one field moves one index key, not all of them. The record keeps
    /// its creation date; one stored without any is created at `modified`.
    func replaceIndexEntries(with newEntries: IndexEntries, recordKey: [UInt8], modified: Int64?) throws {
        var entries = newEntries
        var encoded: [UInt8] = []
        // The stored list is read once and compared in place: an edit of an unindexed field
        // changes no key.
        let old = try transaction.withValue(databases.recordKeys, key: recordKey) { stored -> IndexEntries? in
            entries.createdDate = try keptCreatedDate(stored, recordKey: recordKey, modified: modified)
            encoded = entries.encoded
            guard let stored else { return IndexEntries() }
            return stored.hasSameBytes(as: encoded) ? nil : IndexEntries(decoding: stored)
        }
        guard let old else { return }
        for key in Self.keys(old.indexKeys, missingFrom: entries.indexKeys) {
            _ = try transaction.delete(databases.index, key: key)
        }
        for key in Self.keys(old.tokenKeys, missingFrom: entries.tokenKeys) {
            _ = try transaction.delete(databases.fullText, key: key)
        }
        for key in Self.keys(entries.indexKeys, missingFrom: old.indexKeys) {
            try transaction.put(databases.index, key: key, value: [])
        }
        for key in Self.keys(entries.tokenKeys, missingFrom: old.tokenKeys) {
            try transaction.put(databases.fullText, key: key, value: [])
        }
        try transaction.put(databases.recordKeys, key: recordKey, value: encoded)
    }

    /// The creation date a record keeps when it is replaced: the one in its stored key list;
    /// for a list written by a version that kept none, the stored record's last modification
    /// date (the best the state knows, decision 0010); `modified` for a record not stored yet.
    private func keptCreatedDate(_ stored: UnsafeRawBufferPointer?, recordKey: [UInt8], modified: Int64?) throws
        -> Int64?
    {
        guard let stored else { return modified }
        if let date = IndexEntries.createdDate(inEncoded: stored) { return date }
        guard let old = try transaction.get(databases.records, key: recordKey) else { return modified }
        let soupId = UInt32(truncatingIfNeeded: readBigEndian(recordKey.prefix(4)))
        return Self.lastModifiedDate(of: try Self.parse(json(ofStored: old, soupId: soupId))) ?? modified
    }

    /// The keys of `keys` that `other` lacks, in order. A record has a handful of index keys,
    /// compared directly; a long text can have hundreds of tokens, compared through a set.
    static func keys(_ keys: [[UInt8]], missingFrom other: [[UInt8]]) -> [[UInt8]] {
        guard keys.count * other.count > 64 else { return keys.filter { !other.contains($0) } }
        let present = Set(other)
        return keys.filter { !present.contains($0) }
    }

    /// Writes a record's index and token keys and the list of them.
    /// - Parameter options: for the list's put, whose key is the record's key.
    func writeIndexEntries(
        _ entries: IndexEntries, _ soup: SoupCatalogEntry, _ entryId: Int64, options: PutOptions = []
    ) throws {
        for key in entries.indexKeys { try transaction.put(databases.index, key: key, value: []) }
        for key in entries.tokenKeys { try transaction.put(databases.fullText, key: key, value: []) }
        try transaction.put(
            databases.recordKeys, key: SoupDatabases.recordKey(soup.soupId, entryId), value: entries.encoded,
            options: options)
    }

    /// Where a record with a new id (at or above `next-entry-id`) falls in `soup`: after every
    /// key of the database in the newest soup, after every key of its soup otherwise (see
    /// ``RecordPlacement``). Folds ask once per entry that adds records.
    package func newRecordPlacement(in soup: SoupCatalogEntry) throws -> RecordPlacement {
        // Soups' keys are ordered by soup id, and dropped soups leave no keys behind.
        try UInt64(soup.soupId) + 1 == meta(SoupDatabases.nextSoupIdKey, default: 1) ? .last : .new
    }

    /// Where a saved record's key falls among the keys of the records database.
    ///
    /// `new` and `last` rest on one invariant: every stored record's id is below
    /// `next-entry-id`, because every fold that stores a record raises `next-entry-id` past
    /// its id (as `soup.saved` does). A fold that stores records some other way must keep it.
    package enum RecordPlacement {
        /// Anywhere: the record may replace one.
        case anywhere
        /// After every record of its soup: no record has its id yet.
        case new
        /// After every key of the database: a new id in the soup with the highest soup id.
        case last
    }
}
