import EventJournal
import LMDBStore

/// The named LMDB databases of the soup projection, and the layout of their keys.
///
/// | database | key | value |
/// |---|---|---|
/// | `soups.catalog` | soup name (UTF-8) | catalog entry JSON |
/// | `soups.meta` | `next-entry-id`, `next-soup-id` | UInt64 big-endian |
/// | `soups.records` | soupId (4) · entryId (8) | record JSON, or compressed (`StoredRecordValue`) |
/// | `soups.index` | soupId (4) · indexId (2) · encoded value · entryId (8) | empty |
/// | `soups.fulltext` | soupId (4) · indexId (2) · token · `00` · entryId (8) | empty |
/// | `soups.keys` | soupId (4) · entryId (8) | the record's index and token keys |
/// | `soups.dirty` | soupId (4) · entryId (8) | the record's `DirtyNote`: its base and open conflict, or empty |
/// | `soups.uploading` | soupId (4) · entryId (8) | a fold rule's note on the record (`SoupState.putRecordNote`) |
/// | `soups.dictionaries` | soupId (4) | the id of the soup's current dictionary, UInt32 big-endian |
/// | `soups.dictionaries` | soupId (4) · dictionary id (4) | the zstd dictionary (decision 0030) |
///
/// Numbers are big-endian so that byte order is numeric order.
struct SoupDatabases: Sendable {
    var catalog: Database
    var meta: Database
    var records: Database
    var index: Database
    var fullText: Database
    var recordKeys: Database
    var dirty: Database
    /// The notes fold rules keep per record (MobileSync's creates in flight as upserts,
    /// decision 0353); named for them, which were its first and only notes, so its layout stays.
    var recordNotes: Database
    /// The soups' zstd dictionaries for record values (decision 0030).
    var dictionaries: Database
    /// The dictionaries digested so far, shared by the fold and the readers of one environment.
    let dictionaryCache: RecordDictionaryCache

    static let names = [
        "soups.catalog", "soups.meta", "soups.records", "soups.index", "soups.fulltext", "soups.keys", "soups.dirty",
        "soups.uploading", "soups.dictionaries",
    ]

    /// The handles in `context`'s environment, resolved once per environment.
    static func of(_ context: ProjectionContext) -> SoupDatabases {
        context.handles { SoupDatabases($0.database) }
    }

    init(_ database: (String) -> Database) {
        catalog = database("soups.catalog")
        meta = database("soups.meta")
        records = database(Self.recordsName)
        index = database("soups.index")
        fullText = database("soups.fulltext")
        recordKeys = database("soups.keys")
        dirty = database("soups.dirty")
        recordNotes = database("soups.uploading")
        dictionaries = database("soups.dictionaries")
        dictionaryCache = RecordDictionaryCache()
    }

    static let nextEntryIdKey = Array("next-entry-id".utf8)
    static let nextSoupIdKey = Array("next-soup-id".utf8)

    static func soupPrefix(_ soupId: UInt32) -> [UInt8] {
        withUnsafeBytes(of: soupId.bigEndian, Array.init)
    }

    /// The name of the database of record values.
    static let recordsName = "soups.records"
    /// The length of a key of `soups.records`: soup id, `_soupEntryId`.
    static let recordKeyCount = 12

    static func recordKey(_ soupId: UInt32, _ entryId: Int64) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(12)
        withUnsafeBytes(of: soupId.bigEndian) { key.append(contentsOf: $0) }
        appendBigEndian(UInt64(bitPattern: entryId), to: &key)
        return key
    }

    static func dictionaryKey(_ soupId: UInt32, _ id: UInt32) -> [UInt8] {
        var key = soupPrefix(soupId)
        withUnsafeBytes(of: id.bigEndian) { key.append(contentsOf: $0) }
        return key
    }

    /// The key of `soups.dictionaries` holding the records of soup `soupId` still stored as
    /// JSON since its dictionary came (decision 0033): longer than a dictionary's key, so the
    /// two never meet, and under the soup's prefix, so dropping the soup removes it.
    static func recompressionKey(_ soupId: UInt32) -> [UInt8] {
        soupPrefix(soupId) + Array("recompression".utf8)
    }

    static func indexPrefix(_ soupId: UInt32, _ indexId: UInt16) -> [UInt8] {
        var prefix: [UInt8] = []
        prefix.reserveCapacity(6)
        appendIndexPrefix(soupId, indexId, to: &prefix)
        return prefix
    }

    /// The entry id at the end of a record, index or token key.
    static func entryId(ofKey key: [UInt8]) -> Int64 {
        Int64(bitPattern: readBigEndian(key.suffix(8)))
    }

    /// The index id of an index or token key.
    static func indexId(ofKey key: [UInt8]) -> UInt16 {
        UInt16(key[4]) << 8 | UInt16(key[5])
    }
}

/// Appends an index key's prefix, soup id then index id, big-endian.
func appendIndexPrefix(_ soupId: UInt32, _ indexId: UInt16, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: soupId.bigEndian) { bytes.append(contentsOf: $0) }
    withUnsafeBytes(of: indexId.bigEndian) { bytes.append(contentsOf: $0) }
}
