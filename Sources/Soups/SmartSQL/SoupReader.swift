/// What Smart SQL reads of the soups, and all it reads: the one interface between the SQL
/// engine and the soups' storage.
///
/// Smart SQL's virtual tables, converter and engine never touch LMDB nor record bytes in the
/// store's layout: they ask a reader, which belongs to one read transaction and must not be
/// used after it ends. ``ProjectionSoupReader`` implements it over today's projection; a new
/// record layout re-implements that one type.
///
/// Walks return batches and a position to resume from, so that a virtual table cursor can
/// stream a walk across SQLite's calls without holding a storage cursor between them.
protocol SoupReader {
    /// Every soup, in name order.
    func soups() throws -> [SmartSoup]

    /// The soup named `name`, or `nil` when there is none.
    func soup(named name: String) throws -> SmartSoup?

    /// A cheap estimate of how many records `soup` holds, for the query planner.
    func estimatedRecordCount(of soup: SmartSoup) throws -> Int

    /// Up to `limit` records of `soup` in `_soupEntryId` order (or its reverse), with entry ids
    /// in `ids` (all when `nil`), strictly after `position` in the walk's direction.
    func records(
        of soup: SmartSoup, ids: ClosedRange<Int64>?, descending: Bool, after position: Int64?, limit: Int
    ) throws -> [SoupRecordRow]

    /// Up to `limit` entry ids of `soup`'s records, as ``records(of:ids:descending:after:limit:)``
    /// walks them, without opening a value: for a walk whose query reads no record (sealed or
    /// compressed values cost a decryption or a decompression each).
    func recordIds(
        of soup: SmartSoup, ids: ClosedRange<Int64>?, descending: Bool, after position: Int64?, limit: Int
    ) throws -> [Int64]

    /// The record of `soup` with `entryId`, or `nil`.
    func record(of soup: SmartSoup, entryId: Int64) throws -> SoupRecordRow?

    /// The values the record's indexes hold, by index number: what SmartStore's index columns
    /// hold. An index added without re-indexing holds NULL until the record is saved again.
    ///
    /// - Parameter only: the indexes whose values are wanted, or `nil` for all. A `hashed`
    ///   index's value comes from the record, so the record is opened only when one is wanted.
    func indexedValues(of soup: SmartSoup, entryId: Int64, only: Set<UInt16>?) throws -> [UInt16: SmartSQLValue]

    /// Up to `limit` entries of `index` in `range`, in the index's order (value, then entry id)
    /// or its reverse, strictly after `position`, with the position to resume from (`nil` when
    /// the walk is done).
    func indexEntries(
        of soup: SmartSoup, index: SmartSoup.Index, range: SoupIndexRange, descending: Bool,
        after position: SoupIndexPosition?, limit: Int
    ) throws -> SoupIndexBatch

    /// The record's `_soupLastModifiedDate`, in milliseconds since the epoch.
    func lastModifiedDate(of record: SoupRecordRow) throws -> Int64?

    /// The record's `_soupCreatedDate`, in milliseconds since the epoch (SmartStore's `created`).
    func createdDate(of soup: SmartSoup, record: SoupRecordRow) throws -> Int64?
}

/// One record as a reader returns it: its entry id and its JSON text.
struct SoupRecordRow: Hashable, Sendable {
    var entryId: Int64
    /// The record as compact JSON text in UTF-8: the `soup` column.
    var json: [UInt8]
}

/// One key of an index walk.
struct SoupIndexEntry: Hashable, Sendable {
    var entryId: Int64
    /// The indexed value, or `nil` when the index cannot give it back (a `hashed` index holds
    /// digests only). Text is in its batch's ``SoupIndexBatch/textBytes``.
    var value: SoupKeyValue?
}

/// A value as an index key gives it, its text kept as bytes: a group by reads one per row, and
/// a `String` each (a heap allocation past 15 bytes) cost more than SQLite's whole aggregation
/// step (decision 0031, amendment).
enum SoupKeyValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    /// UTF-8 text: `count` bytes at `offset` of the batch's ``SoupIndexBatch/textBytes``.
    case text(offset: Int, count: Int)
}

/// One batch of an index walk: its entries, the text bytes of their values, and where to resume.
struct SoupIndexBatch: Hashable, Sendable {
    var entries: [SoupIndexEntry] = []
    /// The UTF-8 text of every `.text` value of ``entries``, one after the other: one buffer per
    /// batch rather than one `String` per row.
    var textBytes: [UInt8] = []
    /// The position to resume from, `nil` when the walk is done.
    var next: SoupIndexPosition?

    /// The value of `entry` (one of ``entries``) as SQLite holds it.
    func value(of entry: SoupIndexEntry) -> SmartSQLValue? {
        entry.value.map(value)
    }

    /// `value` (of one of ``entries``) as SQLite holds it.
    func value(_ value: SoupKeyValue) -> SmartSQLValue {
        switch value {
        case .null: return .null
        case .integer(let number): return .integer(number)
        case .real(let number): return .real(number)
        case .text(let offset, let count):
            return .text(String(decoding: textBytes[offset..<(offset + count)], as: UTF8.self))
        }
    }
}

/// Where an index walk stopped; opaque outside the reader that made it.
struct SoupIndexPosition: Hashable, Sendable {
    var key: [UInt8]
}
