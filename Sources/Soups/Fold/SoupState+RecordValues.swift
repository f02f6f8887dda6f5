import LMDBStore

// How the soup state reads and writes the values of `soups.records`, which may be compressed
// with a dictionary of their soup (decision 0030), and how the fold keeps those dictionaries.
extension SoupState {
    // MARK: - Reading

    /// The JSON of a record, opened from whatever form it is stored in, or `nil` when there is
    /// no such record.
    /// - Throws: ``SoupError/Code/storage`` for a damaged value.
    func recordJSON(_ soupId: UInt32, _ entryId: Int64) throws -> [UInt8]? {
        try transaction.get(databases.records, key: SoupDatabases.recordKey(soupId, entryId)).map {
            try json(ofStored: $0, soupId: soupId)
        }
    }

    /// The JSON of a value of `soups.records` in soup `soupId`.
    /// - Throws: ``SoupError/Code/storage`` for a damaged value.
    func json(ofStored stored: [UInt8], soupId: UInt32) throws -> [UInt8] {
        try StoredRecordValue.json(of: stored) { try dictionary(soupId, $0) }
    }

    /// Visits the keys of a soup's records in order until `body` returns `false`, opening no
    /// value (a sealed store would decrypt each).
    func forEachRecordKey(_ soupId: UInt32, from entryId: Int64? = nil, _ body: ([UInt8]) throws -> Bool) throws {
        var range = KeyRange.prefix(SoupDatabases.soupPrefix(soupId))
        if let entryId { range.lowerBound = SoupDatabases.recordKey(soupId, entryId) }
        try transaction.withCursor(databases.records) { cursor in
            try cursor.forEachKeyInPlace(in: range) { try body(Array($0)) }
        }
    }

    /// Dictionary `id` of soup `soupId`, digested once per environment; `nil` when the soup has
    /// no dictionary of that id.
    /// - Throws: ``SoupError/Code/storage`` when the stored dictionary is not one zstd reads.
    func dictionary(_ soupId: UInt32, _ id: UInt32) throws -> RecordDictionary? {
        if let cached = databases.dictionaryCache.dictionary(soupId: soupId, id: id) { return cached }
        guard let bytes = try transaction.get(databases.dictionaries, key: SoupDatabases.dictionaryKey(soupId, id))
        else { return nil }
        guard let dictionary = RecordDictionary(id: id, bytes: bytes) else {
            throw SoupError(.storage, "dictionary \(id) of soup \(soupId) is damaged: zstd cannot digest it")
        }
        databases.dictionaryCache.remember(dictionary, soupId: soupId)
        return dictionary
    }

    /// The id of the dictionary new values of soup `soupId` are compressed with, if it has one.
    package func currentDictionaryId(_ soupId: UInt32) throws -> UInt32? {
        try transaction.withValue(databases.dictionaries, key: SoupDatabases.soupPrefix(soupId)) { stored in
            stored.flatMap { $0.count == 4 ? UInt32(truncatingIfNeeded: readBigEndian($0)) : nil }
        }
    }

    // MARK: - Writing (the fold only)

    /// The value to store for a record serialized as `json` in soup `soupId`: compressed with
    /// the soup's current dictionary when it has one and that is smaller. `prepared`, when
    /// given, is that value made beforehand (``preparedValues(_:soupId:halvesCountMin:)``), used
    /// when it was made with the dictionary that is current now.
    func storedValue(_ json: [UInt8], soupId: UInt32, prepared: PreparedRecordValue? = nil) throws -> [UInt8] {
        let id = try currentDictionaryId(soupId)
        if let prepared, prepared.dictionaryId == id { return prepared.value }
        guard let dictionary = try currentDictionary(soupId, id: id) else { return json }
        return StoredRecordValue.stored(json, with: dictionary)
    }

    /// Dictionary `id`, the current one of soup `soupId` (``currentDictionaryId(_:)``); `nil`
    /// when the soup has none.
    /// - Throws: ``SoupError/Code/storage`` when the soup names a dictionary it does not have,
    ///   or one that is damaged.
    private func currentDictionary(_ soupId: UInt32, id: UInt32?) throws -> RecordDictionary? {
        guard let id else { return nil }
        guard let dictionary = try dictionary(soupId, id) else {
            throw SoupError(.storage, "soup \(soupId) names dictionary \(id) as current, which it does not have")
        }
        return dictionary
    }

    /// The fewest records whose values ``preparedValues(_:soupId:halvesCountMin:)`` compresses
    /// in two halves at once: 256 records are about 2 ms of zstd, against tens of microseconds
    /// to start and join a thread (decision 0034).
    package static let valuesInHalvesCountMin = 256

    /// The values to store for records serialized as `jsons` in soup `soupId`, made before
    /// they are stored: each is the value ``storedValue(_:soupId:)`` gives, compressed in two
    /// halves at once, on this thread and a second one, when there are at least
    /// `halvesCountMin` (decision 0034).
    ///
    /// The second thread only compresses bytes it is given with the digested dictionary, read
    /// here first; nothing of the transaction is used off this thread.
    /// - Parameters:
    ///   - jsons: the records' serializations, as they would be stored uncompressed.
    ///   - soupId: their soup.
    ///   - halvesCountMin: the fewest records compressed in two halves; tests pass 0 or
    ///     `Int.max` to compare the two ways.
    /// - Returns: one value per record, in order, each naming the dictionary it was made with.
    /// - Throws: ``SoupError/Code/storage`` when the soup's current dictionary is missing or damaged.
    /// - Complexity: O(total bytes of `jsons`), in about half the time on two cores.
    package func preparedValues(
        _ jsons: [[UInt8]], soupId: UInt32, halvesCountMin: Int = SoupState.valuesInHalvesCountMin
    ) throws -> [PreparedRecordValue] {
        let id = try currentDictionaryId(soupId)
        guard let dictionary = try currentDictionary(soupId, id: id) else {
            return jsons.map { PreparedRecordValue(dictionaryId: nil, value: $0) }
        }
        let values = StoredRecordValue.stored(jsons, with: dictionary, inHalves: jsons.count >= halvesCountMin)
        return values.map { PreparedRecordValue(dictionaryId: id, value: $0) }
    }

    /// Stores dictionary `id` of `soup` and makes it the soup's current one: the fold of a
    /// `soup.dictionary` entry.
    ///
    /// With `rewritesRecords` (entries of the build that introduced dictionaries) every record of
    /// the soup is stored again with it now. Otherwise the records the soup holds are noted as
    /// still to compress, and `soup.recompressed` entries store them in batches
    /// (``recompressRecords(of:dictionaryId:from:through:)``, decision 0033).
    /// - Throws: ``SoupError/Code/storage`` when zstd cannot digest `bytes`, or a record is damaged.
    /// - Complexity: O(n) in the soup's records when `rewritesRecords`, each opened and
    ///   compressed once; two cursor moves otherwise.
    func putDictionary(_ bytes: [UInt8], id: UInt32, in soup: SoupCatalogEntry, rewritesRecords: Bool) throws {
        guard let dictionary = RecordDictionary(id: id, bytes: bytes) else {
            throw SoupError(.storage, "dictionary \(id) of soup \(soup.name) is not one zstd can digest")
        }
        try transaction.put(databases.dictionaries, key: SoupDatabases.dictionaryKey(soup.soupId, id), value: bytes)
        var current: [UInt8] = []
        withUnsafeBytes(of: id.bigEndian) { current.append(contentsOf: $0) }
        try transaction.put(databases.dictionaries, key: SoupDatabases.soupPrefix(soup.soupId), value: current)
        // Before any value uses it, and replacing whatever an earlier, failed write left.
        databases.dictionaryCache.remember(dictionary, soupId: soup.soupId)
        if rewritesRecords {
            try recompressRecords(of: soup.soupId, with: dictionary, in: .prefix(SoupDatabases.soupPrefix(soup.soupId)))
            try putPendingRecompression(nil, soupId: soup.soupId)
            return
        }
        // Records saved from now on are compressed as they are stored: only these are left.
        let prefix = SoupDatabases.soupPrefix(soup.soupId)
        let span = try transaction.withCursor(databases.records) { cursor -> ClosedRange<Int64>? in
            guard let first = try cursor.seekKey(atLeast: prefix), first.starts(with: prefix) else { return nil }
            var last = first
            try cursor.forEach(in: .prefix(prefix), reverse: true) { key, _ in
                last = key
                return false
            }
            return SoupDatabases.entryId(ofKey: first)...SoupDatabases.entryId(ofKey: last)
        }
        try putPendingRecompression(span, soupId: soup.soupId)
    }

    /// Stores the records of soup `soupId` with `_soupEntryId` in `from...through` again,
    /// compressed with dictionary `dictionaryId`, and notes them done: the fold of a
    /// `soup.recompressed` entry. A record already compressed, or one saved since, is left as
    /// it is, so folding one batch twice changes nothing.
    /// - Throws: ``SoupError/Code/storage`` when the soup has no such dictionary or a record is
    ///   damaged.
    func recompressRecords(of soupId: UInt32, dictionaryId: UInt32, from: Int64, through: Int64) throws {
        guard let dictionary = try dictionary(soupId, dictionaryId) else {
            throw SoupError(.storage, "soup \(soupId) has no dictionary \(dictionaryId) to compress its records with")
        }
        let range = KeyRange(
            from: SoupDatabases.recordKey(soupId, from), to: SoupDatabases.recordKey(soupId, through),
            includesUpperBound: true)
        try recompressRecords(of: soupId, with: dictionary, in: range)
        guard let pending = try pendingRecompression(soupId) else { return }
        let next = through == Int64.max ? nil : through + 1
        if let next, next <= pending.upperBound {
            try putPendingRecompression(max(next, pending.lowerBound)...pending.upperBound, soupId: soupId)
        } else {
            try putPendingRecompression(nil, soupId: soupId)
        }
    }

    /// The `_soupEntryId`s of soup `soupId` whose records may still be stored as JSON since its
    /// dictionary came; `nil` when none are.
    package func pendingRecompression(_ soupId: UInt32) throws -> ClosedRange<Int64>? {
        try transaction.withValue(databases.dictionaries, key: SoupDatabases.recompressionKey(soupId)) { stored in
            guard let stored, stored.count == 16 else { return nil }
            let from = Int64(bitPattern: readBigEndian(stored.prefix(8)))
            let through = Int64(bitPattern: readBigEndian(stored.suffix(8)))
            return from <= through ? from...through : nil
        }
    }

    /// Notes `span` as the records of soup `soupId` still to compress, or none.
    func putPendingRecompression(_ span: ClosedRange<Int64>?, soupId: UInt32) throws {
        let key = SoupDatabases.recompressionKey(soupId)
        guard let span else {
            _ = try transaction.delete(databases.dictionaries, key: key)
            return
        }
        var value: [UInt8] = []
        appendBigEndian(UInt64(bitPattern: span.lowerBound), to: &value)
        appendBigEndian(UInt64(bitPattern: span.upperBound), to: &value)
        try transaction.put(databases.dictionaries, key: key, value: value)
    }

    /// The most records read before they are written back, so a soup of any size costs bounded
    /// memory while its records are compressed again.
    static let recompressionBatchCountMax = 1_000

    private func recompressRecords(of soupId: UInt32, with dictionary: RecordDictionary, in range: KeyRange) throws {
        var after: [UInt8]?
        while true {
            var batch: [(key: [UInt8], value: [UInt8])] = []
            let remaining =
                after.map {
                    KeyRange(from: $0 + [0], to: range.upperBound, includesUpperBound: range.includesUpperBound)
                } ?? range
            try transaction.withCursor(databases.records) { cursor in
                try cursor.forEach(in: remaining) { key, value in
                    batch.append((key, value))
                    return batch.count < Self.recompressionBatchCountMax
                }
            }
            for (key, value) in batch where value.first != StoredRecordValue.compressedTag {
                let stored = StoredRecordValue.stored(try json(ofStored: value, soupId: soupId), with: dictionary)
                if stored != value { try transaction.put(databases.records, key: key, value: stored) }
            }
            guard batch.count == Self.recompressionBatchCountMax, let last = batch.last else { return }
            after = last.key
        }
    }

    /// Removes every dictionary of soup `soupId`: the soup is dropped.
    func removeDictionaries(_ soupId: UInt32) throws {
        var keys: [[UInt8]] = []
        try transaction.withCursor(databases.dictionaries) { cursor in
            try cursor.forEachKeyInPlace(in: .prefix(SoupDatabases.soupPrefix(soupId))) { key in
                keys.append(Array(key))
                return true
            }
        }
        for key in keys { _ = try transaction.delete(databases.dictionaries, key: key) }
        databases.dictionaryCache.forget(soupId: soupId)
    }
}
