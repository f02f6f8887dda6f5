import LMDBStore
import LosslessJSON

/// The ``SoupReader`` over today's soup projection: catalog entries, the `soups.records`,
/// `soups.index` and `soups.keys` databases, in the read transaction of `state`.
///
/// This is the only Smart SQL file that knows the projection's layout (docs/soups.md, "Data
/// layout in LMDB"). A new record or key layout re-implements this file and nothing else.
struct ProjectionSoupReader: SoupReader {
    let state: SoupState

    // MARK: - Catalog

    func soups() throws -> [SmartSoup] {
        try state.soupNames().compactMap { try soup(named: $0) }
    }

    func soup(named name: String) throws -> SmartSoup? {
        try state.catalogEntry(name).map(Self.smartSoup)
    }

    static func smartSoup(_ entry: SoupCatalogEntry) -> SmartSoup {
        SmartSoup(
            name: entry.name, number: entry.soupId,
            indexes: entry.indexes.map { SmartSoup.Index(path: $0.spec.path, type: $0.spec.type, number: $0.id) })
    }

    func estimatedRecordCount(of soup: SmartSoup) throws -> Int {
        // The span of the soup's entry ids bounds its record count; ids are dense when records
        // arrive in batches, which is how soups fill. Two cursor moves, no scan.
        let prefix = SoupDatabases.soupPrefix(soup.number)
        let span = try state.transaction.withCursor(state.databases.records) { cursor -> Int in
            guard let first = try cursor.seekKey(atLeast: prefix), first.starts(with: prefix) else { return 0 }
            var last = first
            // The last key alone: planning opens no value either.
            try cursor.forEachKeyInPlace(in: .prefix(prefix), reverse: true) { key in
                last = Array(key)
                return false
            }
            let (span, overflow) = SoupDatabases.entryId(ofKey: last).subtractingReportingOverflow(
                SoupDatabases.entryId(ofKey: first))
            return overflow ? Int.max : Int(span) + 1
        }
        return min(span, try state.transaction.entryCount(state.databases.records))
    }

    // MARK: - Records

    func records(
        of soup: SmartSoup, ids: ClosedRange<Int64>?, descending: Bool, after position: Int64?, limit: Int
    ) throws -> [SoupRecordRow] {
        guard let range = Self.recordKeyRange(soup, ids: ids, descending: descending, after: position), limit > 0
        else { return [] }
        var rows: [SoupRecordRow] = []
        rows.reserveCapacity(min(limit, 1024))
        try state.transaction.withCursor(state.databases.records) { cursor in
            try cursor.forEach(in: range, reverse: descending) { key, value in
                rows.append(
                    SoupRecordRow(
                        entryId: SoupDatabases.entryId(ofKey: key),
                        json: try state.json(ofStored: value, soupId: soup.number)))
                return rows.count < limit
            }
        }
        return rows
    }

    func recordIds(
        of soup: SmartSoup, ids: ClosedRange<Int64>?, descending: Bool, after position: Int64?, limit: Int
    ) throws -> [Int64] {
        guard let range = Self.recordKeyRange(soup, ids: ids, descending: descending, after: position), limit > 0
        else { return [] }
        var entryIds: [Int64] = []
        entryIds.reserveCapacity(min(limit, 1024))
        let visit = { (key: UnsafeRawBufferPointer) -> Bool in
            entryIds.append(Int64(bitPattern: readBigEndian(key.suffix(8))))
            return entryIds.count < limit
        }
        try state.transaction.withCursor(state.databases.records) { cursor in
            // Keys alone, either way: no value is copied, decompressed, or has its seal checked.
            try cursor.forEachKeyInPlace(in: range, reverse: descending, visit)
        }
        return entryIds
    }

    /// The keys of `soup`'s records with entry ids in `ids`, strictly after `position` in the
    /// walk's direction; `nil` when there are none.
    private static func recordKeyRange(
        _ soup: SmartSoup, ids: ClosedRange<Int64>?, descending: Bool, after position: Int64?
    ) -> KeyRange? {
        // Entry ids are positive: clamp so that a negative bound from SQL stays in the soup's keys.
        var low = max(ids?.lowerBound ?? 0, 0)
        var high = ids?.upperBound ?? .max
        if let position {
            if descending { high = min(high, position - 1) } else { low = max(low, position + 1) }
        }
        guard low <= high else { return nil }
        return KeyRange(
            from: SoupDatabases.recordKey(soup.number, low), to: SoupDatabases.recordKey(soup.number, high),
            includesUpperBound: true)
    }

    func record(of soup: SmartSoup, entryId: Int64) throws -> SoupRecordRow? {
        try state.recordJSON(soup.number, entryId).map { SoupRecordRow(entryId: entryId, json: $0) }
    }

    func lastModifiedDate(of record: SoupRecordRow) throws -> Int64? {
        try Self.milliseconds(SoupState.parse(record.json)[SoupStore.lastModifiedDateField])
    }

    func createdDate(of soup: SmartSoup, record: SoupRecordRow) throws -> Int64? {
        let stored: Int64? = try state.transaction.withValue(
            state.databases.recordKeys, key: SoupDatabases.recordKey(soup.number, record.entryId)
        ) { bytes in bytes.flatMap { IndexEntries.createdDate(inEncoded: $0) } }
        // A record stored before creation dates were kept shows its last modification date,
        // what a migration knows of it (decision 0010).
        return try stored ?? lastModifiedDate(of: record)
    }

    private static func milliseconds(_ value: JSONValue?) -> Int64? {
        guard let number = value?.number else { return nil }
        return number.int64Value ?? IndexValue.integer(of: number)
    }

    // MARK: - Indexes

    func indexedValues(of soup: SmartSoup, entryId: Int64, only: Set<UInt16>?) throws -> [UInt16: SmartSQLValue] {
        let wanted = { (number: UInt16) in only?.contains(number) ?? true }
        var values: [UInt16: SmartSQLValue] = [:]
        // Decoded from the stored list in place, each wanted key once.
        try state.transaction.withValue(
            state.databases.recordKeys, key: SoupDatabases.recordKey(soup.number, entryId)
        ) { stored in
            guard let stored else { return }
            for key in IndexEntries(decoding: stored).indexKeys {
                let number = SoupDatabases.indexId(ofKey: key)
                guard wanted(number), let index = soup.indexes.first(where: { $0.number == number }),
                    index.type != .hashed
                else { continue }
                values[number] = Self.value(inKey: key, type: index.type)
            }
        }
        // A hashed index holds digests: its column shows the value from the record, opened in
        // memory, and only when the query wants one.
        let hashed = soup.indexes.filter { $0.type == .hashed && wanted($0.number) }
        if !hashed.isEmpty, let record = try record(of: soup, entryId: entryId) {
            let parsed = try SoupState.parse(record.json)
            for index in hashed {
                values[index.number] = Self.smartValue(
                    IndexValue.extract(SoupPath.project(parsed, index.path), as: .string))
            }
        }
        return values
    }

    func indexEntries(
        of soup: SmartSoup, index: SmartSoup.Index, range: SoupIndexRange, descending: Bool,
        after position: SoupIndexPosition?, limit: Int
    ) throws -> SoupIndexBatch {
        guard limit > 0, var keys = try keyRange(soup, index, range) else { return SoupIndexBatch() }
        if let position {
            if descending {
                keys.upperBound = position.key
                keys.includesUpperBound = false
            } else {
                // The smallest key after `position`: keys are distinct, so nothing lies between.
                keys.lowerBound = position.key + [0]
            }
        }
        var batch = SoupIndexBatch()
        batch.entries.reserveCapacity(min(limit, 1024))
        // Decoded in place: a walk copies no key but the one it may resume after, and builds no
        // `String`; text goes to the batch's one buffer.
        let visit = { (key: UnsafeRawBufferPointer) -> Bool in
            batch.entries.append(
                SoupIndexEntry(
                    entryId: Int64(bitPattern: readBigEndian(key.suffix(8))),
                    value: index.type == .hashed
                        ? nil : Self.keyValue(inKey: key, type: index.type, textBytes: &batch.textBytes)))
            guard batch.entries.count < limit else {
                batch.next = SoupIndexPosition(key: Array(key))
                return false
            }
            return true
        }
        try state.transaction.withCursor(state.databases.index) { cursor in
            // Everything is in the keys: the values' seals (a decryption in an encrypted store,
            // a checksum otherwise) are not even checked, either way.
            try cursor.forEachKeyInPlace(in: keys, reverse: descending, visit)
        }
        return batch
    }

    /// The keys of `index` that `range` covers, or `nil` when no key can (an operand of another
    /// type than the index's).
    private func keyRange(_ soup: SmartSoup, _ index: SmartSoup.Index, _ range: SoupIndexRange) throws -> KeyRange? {
        let prefix = SoupDatabases.indexPrefix(soup.number, index.number)
        switch range {
        case .all:
            return .prefix(prefix)
        case .nulls:
            return KeyRange(
                from: prefix + [IndexValue.nullTag], to: Self.lastKey(prefix, .null), includesUpperBound: true)
        case .equal(let value):
            guard let operand = try operand(value, index) else { return nil }
            return KeyRange(from: prefix + operand.encoded, to: Self.lastKey(prefix, operand), includesUpperBound: true)
        case .between(let lower, let upper):
            var keys = KeyRange(from: prefix + [IndexValue.nullTag + 1], to: KeyRange.prefix(prefix).upperBound)
            if let lower {
                guard let operand = try operand(lower.value, index) else { return nil }
                keys.lowerBound = lower.isInclusive ? prefix + operand.encoded : Self.lastKey(prefix, operand) + [0]
            }
            if let upper {
                guard let operand = try operand(upper.value, index) else { return nil }
                keys.upperBound = upper.isInclusive ? Self.lastKey(prefix, operand) : prefix + operand.encoded
                keys.includesUpperBound = upper.isInclusive
            }
            return keys
        }
    }

    /// An operand in the index's encoding, or `nil` when its type is not the index's.
    private func operand(_ value: SmartSQLValue, _ index: SmartSoup.Index) throws -> IndexValue? {
        switch (index.type, value) {
        case (.integer, .integer(let number)): return .integer(number)
        case (.floating, .integer(let number)): return .floating(Double(number))
        case (.floating, .real(let number)): return number.isNaN ? nil : .floating(number)
        case (.string, .text(let text)), (.fullText, .text(let text)): return .text(text)
        case (.hashed, .text(let text)): return try IndexValue.text(text).digested(in: state.transaction)
        default: return nil
        }
    }

    /// The last possible key holding `value`: its keys differ only in the entry id.
    private static func lastKey(_ prefix: [UInt8], _ value: IndexValue) -> [UInt8] {
        prefix + value.encoded + [UInt8](repeating: 0xFF, count: 8)
    }

    /// The length of an index key's soup and index numbers, worked out once: building a prefix
    /// to count it allocates, and a walk decodes a value per key.
    private static let indexPrefixByteCount = SoupDatabases.indexPrefix(0, 0).count

    /// The value in an index key: after the soup and index numbers, before the entry id.
    private static func value<Key: RandomAccessCollection<UInt8>>(inKey key: Key, type: IndexType) -> SmartSQLValue
    where Key.Index == Int {
        let start = indexPrefixByteCount
        guard key.count >= start + 8,
            let decoded = key.withContiguousStorageIfAvailable({
                IndexValue.decode($0[start..<($0.count - 8)], numbersAreIntegers: type == .integer)
            })
                ?? IndexValue.decode(
                    key[(key.startIndex + start)..<(key.endIndex - 8)], numbersAreIntegers: type == .integer)
        else { return .null }
        return smartValue(decoded.value)
    }

    /// The value in an index key, as ``value(inKey:type:)`` decodes it, with its text appended
    /// to `textBytes` rather than made a `String`.
    static func keyValue(inKey key: UnsafeRawBufferPointer, type: IndexType, textBytes: inout [UInt8]) -> SoupKeyValue {
        let start = indexPrefixByteCount
        guard key.count >= start + 8 else { return .null }
        let encoded = UnsafeRawBufferPointer(rebasing: key[start..<(key.count - 8)])
        guard encoded.first == IndexValue.textTag else {
            // NULL and numbers build nothing on the heap.
            switch IndexValue.decode(encoded, numbersAreIntegers: type == .integer)?.value {
            case .integer(let number): return .integer(number)
            case .floating(let number): return .real(number)
            case .null, .text, nil: return .null
            }
        }
        let offset = textBytes.count
        guard IndexValue.appendText(encoded, to: &textBytes) != nil else {
            // Malformed: NULL, as ``value(inKey:type:)`` gives it.
            textBytes.removeSubrange(offset...)
            return .null
        }
        return .text(offset: offset, count: textBytes.count - offset)
    }

    private static func smartValue(_ value: IndexValue) -> SmartSQLValue {
        switch value {
        case .null: return .null
        case .integer(let number): return .integer(number)
        case .floating(let number): return .real(number)
        case .text(let text): return .text(text)
        }
    }
}
