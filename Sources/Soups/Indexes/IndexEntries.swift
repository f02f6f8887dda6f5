import LMDBStore
import LosslessJSON

/// The index and token keys that one record has, kept next to it so that replacing or
/// deleting the record removes exactly what was written, even for indexes that an alter
/// without re-indexing left holding nulls; and the record's creation date.
struct IndexEntries: Hashable, Sendable {
    var indexKeys: [[UInt8]] = []
    var tokenKeys: [[UInt8]] = []
    /// The record's `_soupCreatedDate` in milliseconds (SmartStore's `created` column): its
    /// `_soupLastModifiedDate` when it was first stored. `nil` for a record stored by a version
    /// that did not keep it (decision 0010).
    var createdDate: Int64?

    init() {}

    /// The keys `record` gets in `soup`'s indexes, or only in those whose id is in `only`.
    /// A ``IndexType/hashed`` index gets the digest that `transaction`'s environment computes.
    static func keys(
        for record: JSONValue, entryId: Int64, in soup: SoupCatalogEntry, only: Set<UInt16>?,
        transaction: Transaction
    ) throws -> IndexEntries {
        try keys(for: record, entryId: entryId, in: soup, only: only) { try $0.digested(in: transaction) }
    }

    /// The keys `record` gets in the indexes of `soup`, or `nil` when one of them is hashed:
    /// computed without a transaction, so ahead of the fold on another thread
    /// (``ParsedSave/computeIndexEntries(in:)``), since a digest needs the environment's key.
    static func keys(for record: JSONValue, entryId: Int64, inUnhashed soup: SoupCatalogEntry) -> IndexEntries? {
        guard !soup.indexes.contains(where: { $0.spec.type == .hashed }) else { return nil }
        return keys(for: record, entryId: entryId, in: soup, only: nil) { $0 }
    }

    private static func keys(
        for record: JSONValue, entryId: Int64, in soup: SoupCatalogEntry, only: Set<UInt16>?,
        digest: (IndexValue) throws -> IndexValue
    ) rethrows -> IndexEntries {
        var entries = IndexEntries()
        for index in soup.indexes where only?.contains(index.id) ?? true {
            let value = SoupPath.project(record, components: index.pathComponents)
            var indexed = IndexValue.extract(value, as: index.spec.type)
            if index.spec.type == .hashed { indexed = try digest(indexed) }
            entries.add(indexed, index: index, soupId: soup.soupId, entryId)
            if index.spec.type == .fullText {
                // Sorted: a Set's order differs between instances, and the stored key list must not.
                for token in Set(fullTextTokens(of: value)).sorted() {
                    entries.tokenKeys.append(tokenKey(soup.soupId, index.id, token, entryId))
                }
            }
        }
        return entries
    }

    /// The tokens, in text order, that the `full_text` index `index` takes from `record`.
    static func fullTextTokens(of record: JSONValue, index: SoupCatalogEntry.CatalogIndex) -> [String] {
        fullTextTokens(of: SoupPath.project(record, components: index.pathComponents))
    }

    /// The tokens of the value at a `full_text` index's path, in text order.
    private static func fullTextTokens(of value: JSONValue?) -> [String] {
        guard let text = IndexValue.extract(value, as: .fullText).likeText else { return [] }
        return FullTextTokenizer.tokens(text)
    }

    /// A null entry for `index`, which is what a record gets in an index added without
    /// re-indexing (SmartStore leaves the new column NULL).
    mutating func add(_ value: IndexValue, index: SoupCatalogEntry.CatalogIndex, soupId: UInt32, _ entryId: Int64) {
        // One allocation per key: prefix (6), tag and value, entry id (8).
        var key: [UInt8] = []
        key.reserveCapacity(32)
        appendIndexPrefix(soupId, index.id, to: &key)
        value.encode(into: &key)
        appendBigEndian(UInt64(bitPattern: entryId), to: &key)
        indexKeys.append(key)
    }

    static func tokenKey(_ soupId: UInt32, _ indexId: UInt16, _ token: String, _ entryId: Int64) -> [UInt8] {
        var key = SoupDatabases.indexPrefix(soupId, indexId) + Array(token.utf8)
        key.append(0)
        appendBigEndian(UInt64(bitPattern: entryId), to: &key)
        return key
    }

    /// Keeps only the keys of the indexes in `ids`, and the creation date.
    func keeping(_ ids: Set<UInt16>) -> IndexEntries {
        var kept = IndexEntries()
        kept.createdDate = createdDate
        kept.indexKeys = indexKeys.filter { ids.contains(SoupDatabases.indexId(ofKey: $0)) }
        kept.tokenKeys = tokenKeys.filter { ids.contains(SoupDatabases.indexId(ofKey: $0)) }
        return kept
    }

    mutating func merge(_ other: IndexEntries) {
        indexKeys += other.indexKeys
        tokenKeys += other.tokenKeys
    }

    /// Length-prefixed keys: a count of index keys, then each key, then the token keys; then
    /// the creation date (`Int64` BE) when known.
    var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(
            24 + indexKeys.reduce(0) { $0 + 8 + $1.count } + tokenKeys.reduce(0) { $0 + 8 + $1.count })
        Self.encode(indexKeys, into: &bytes)
        Self.encode(tokenKeys, into: &bytes)
        if let createdDate { appendBigEndian(UInt64(bitPattern: createdDate), to: &bytes) }
        return bytes
    }

    /// The creation date in an encoded list, read without copying its keys; `nil` for a list
    /// written without one.
    static func createdDate(inEncoded bytes: some RandomAccessCollection<UInt8>) -> Int64? {
        var position = bytes.startIndex
        func readNumber() -> UInt64? {
            guard bytes.distance(from: position, to: bytes.endIndex) >= 8 else { return nil }
            let end = bytes.index(position, offsetBy: 8)
            defer { position = end }
            return readBigEndian(bytes[position..<end])
        }
        for _ in 0..<2 {
            guard let count = readNumber() else { return nil }
            for _ in 0..<count {
                guard let length = readNumber(), length <= UInt64(bytes.distance(from: position, to: bytes.endIndex))
                else { return nil }
                position = bytes.index(position, offsetBy: Int(length))
            }
        }
        return readNumber().map { Int64(bitPattern: $0) }
    }

    private static func encode(_ keys: [[UInt8]], into bytes: inout [UInt8]) {
        appendBigEndian(UInt64(keys.count), to: &bytes)
        for key in keys {
            appendBigEndian(UInt64(key.count), to: &bytes)
            bytes += key
        }
    }

    init(decoding bytes: some RandomAccessCollection<UInt8>) {
        var position = bytes.startIndex
        func readNumber() -> Int {
            guard bytes.distance(from: position, to: bytes.endIndex) >= 8 else { return 0 }
            let end = bytes.index(position, offsetBy: 8)
            defer { position = end }
            return Int(clamping: readBigEndian(bytes[position..<end]))
        }
        var lists: [[[UInt8]]] = [[], []]
        for list in 0..<2 {
            let count = readNumber()
            lists[list].reserveCapacity(min(count, 1024))
            for _ in 0..<count {
                // A damaged list ends the keys instead of counting on forever.
                guard bytes.distance(from: position, to: bytes.endIndex) >= 8 else { break }
                let length = readNumber()
                guard length >= 0, bytes.distance(from: position, to: bytes.endIndex) >= length else { break }
                let end = bytes.index(position, offsetBy: length)
                lists[list].append(Array(bytes[position..<end]))
                position = end
            }
        }
        indexKeys = lists[0]
        tokenKeys = lists[1]
        if bytes.distance(from: position, to: bytes.endIndex) >= 8 {
            createdDate = Int64(bitPattern: readBigEndian(bytes[position..<bytes.index(position, offsetBy: 8)]))
        }
    }
}
