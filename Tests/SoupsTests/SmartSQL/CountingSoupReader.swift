@testable import Soups

/// A ``SoupReader`` that reads through another and counts the records it opens, so that a test
/// can tell a walk that reads keys alone from one that opens values.
final class CountingSoupReader: SoupReader {
    private let base: any SoupReader
    /// How many records were opened: one per record of a batch, one per single read.
    private(set) var recordsOpened = 0
    /// How many rows had their index values decoded from their key lists.
    private(set) var indexValueReads = 0
    /// The indexes each of those reads asked for (`nil`: all).
    private(set) var indexesAskedFor: [Set<UInt16>?] = []

    init(_ base: any SoupReader) {
        self.base = base
    }

    func soups() throws -> [SmartSoup] {
        try base.soups()
    }

    func soup(named name: String) throws -> SmartSoup? {
        try base.soup(named: name)
    }

    func estimatedRecordCount(of soup: SmartSoup) throws -> Int {
        try base.estimatedRecordCount(of: soup)
    }

    func records(
        of soup: SmartSoup, ids: ClosedRange<Int64>?, descending: Bool, after position: Int64?, limit: Int
    ) throws -> [SoupRecordRow] {
        let rows = try base.records(of: soup, ids: ids, descending: descending, after: position, limit: limit)
        recordsOpened += rows.count
        return rows
    }

    func recordIds(
        of soup: SmartSoup, ids: ClosedRange<Int64>?, descending: Bool, after position: Int64?, limit: Int
    ) throws -> [Int64] {
        try base.recordIds(of: soup, ids: ids, descending: descending, after: position, limit: limit)
    }

    func record(of soup: SmartSoup, entryId: Int64) throws -> SoupRecordRow? {
        recordsOpened += 1
        return try base.record(of: soup, entryId: entryId)
    }

    func indexedValues(of soup: SmartSoup, entryId: Int64, only: Set<UInt16>?) throws -> [UInt16: SmartSQLValue] {
        indexValueReads += 1
        indexesAskedFor.append(only)
        return try base.indexedValues(of: soup, entryId: entryId, only: only)
    }

    func indexEntries(
        of soup: SmartSoup, index: SmartSoup.Index, range: SoupIndexRange, descending: Bool,
        after position: SoupIndexPosition?, limit: Int
    ) throws -> SoupIndexBatch {
        try base.indexEntries(
            of: soup, index: index, range: range, descending: descending, after: position, limit: limit)
    }

    func lastModifiedDate(of record: SoupRecordRow) throws -> Int64? {
        try base.lastModifiedDate(of: record)
    }

    func createdDate(of soup: SmartSoup, record: SoupRecordRow) throws -> Int64? {
        try base.createdDate(of: soup, record: record)
    }
}
