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
    /// or its reverse, strictly after `position`; and the position to resume from, `nil` when
    /// the walk is done.
    func indexEntries(
        of soup: SmartSoup, index: SmartSoup.Index, range: SoupIndexRange, descending: Bool,
        after position: SoupIndexPosition?, limit: Int
    ) throws -> (entries: [SoupIndexEntry], next: SoupIndexPosition?)

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
    /// digests only).
    var value: SmartSQLValue?
}

/// Where an index walk stopped; opaque outside the reader that made it.
struct SoupIndexPosition: Hashable, Sendable {
    var key: [UInt8]
}
