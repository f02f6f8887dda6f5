/// One walk over a soup's virtual table: the rows of one `xFilter`, read in batches from the
/// ``SoupReader`` so that no storage cursor stays open between SQLite's calls.
///
/// Batches start small, for lookups and `LIMIT`ed pages, and grow for scans.
final class SoupTableCursor {
    /// An `xFilter` argument: one value, or all the values of an `IN` list. `nil` stands for a BLOB.
    enum Argument {
        case single(SmartSQLValue?)
        case list([SmartSQLValue?])
    }

    /// One row, with what was read of it so far.
    private struct Row {
        var entryId: Int64
        var record: SoupRecordRow?
        /// The walked index's value, from its key; its text is in ``walkedText``.
        var walkedValue: SoupKeyValue?
        var indexedValues: [UInt16: SmartSQLValue]?
    }

    /// What is left to read.
    private enum Source {
        case done
        case records(ids: ClosedRange<Int64>?, after: Int64?)
        case recordIds(ArraySlice<Int64>)
        case index(SmartSoup.Index, ranges: ArraySlice<SoupIndexRange>, after: SoupIndexPosition?)
    }

    static let batchSizeFirst = 32
    static let batchSizeMax = 4096

    private let reader: any SoupReader
    private let soup: SmartSoup
    /// The numbers of the soup's indexes that have a column.
    private let columnIndexNumbers: [UInt16]
    private var rows: [Row] = []
    /// The text of the rows' walked values (``SoupIndexBatch/textBytes``).
    private(set) var walkedText: [UInt8] = []
    private var position = 0
    private var source = Source.done
    private var isDescending = false
    /// The number of the index the walk reads, whose values its keys give.
    private var walkedIndex: UInt16?
    /// Whether rows read their records as they are walked; otherwise the walk reads keys alone
    /// and a row opens its record only if a column needs it.
    private var readsRecord = true
    /// The indexes whose values a row decodes at once, `nil` for all (``SoupTablePlan/readIndexes``).
    private var readIndexes: Set<UInt16>?
    private var batchSize = SoupTableCursor.batchSizeFirst

    init(reader: any SoupReader, soup: SmartSoup) {
        self.reader = reader
        self.soup = soup
        columnIndexNumbers = soup.columnIndexes.map(\.number)
    }

    /// Whether every row has been read.
    var isAtEnd: Bool {
        position >= rows.count
    }

    /// The current row's `_soupEntryId`.
    var entryId: Int64 {
        rows[position].entryId
    }

    /// Starts the walk that `plan` describes, with SQLite's operands.
    func start(_ plan: SoupTablePlan, arguments: [Argument]) throws {
        rows = []
        walkedText = []
        position = 0
        batchSize = Self.batchSizeFirst
        isDescending = plan.isDescending
        walkedIndex = nil
        readsRecord = plan.readsRecord
        readIndexes = plan.readIndexes
        switch plan.access {
        case .records:
            source = Self.recordsSource(plan, arguments)
        case .index(let index):
            walkedIndex = index.number
            let affinity = SoupTableColumn.index(index).affinity
            let ranges = Self.indexRanges(plan, arguments, affinity: affinity, isDescending: plan.isDescending)
            source = ranges.isEmpty ? .done : .index(index, ranges: ranges[...], after: nil)
        }
        try fill()
    }

    /// Moves to the next row.
    func next() throws {
        position += 1
        if position >= rows.count { try fill() }
    }

    // MARK: - Columns

    /// The current record's JSON text.
    func recordJSON() throws -> [UInt8]? {
        try currentRecord()?.json
    }

    /// The current row's value in `column` (any column but `soup`).
    func value(_ column: SoupTableColumn) throws -> SmartSQLValue {
        switch column {
        case .entryId:
            return .integer(entryId)
        case .soup:
            return try recordJSON().map { .text(String(decoding: $0, as: UTF8.self)) } ?? .null
        case .created:
            return try currentRecord().flatMap { try reader.createdDate(of: soup, record: $0) }.map(
                SmartSQLValue.integer) ?? .null
        case .lastModified:
            return try currentRecord().flatMap { try reader.lastModifiedDate(of: $0) }.map(SmartSQLValue.integer)
                ?? .null
        case .index(let index):
            if let value = walkedValue(ofIndex: index.number) {
                return SoupIndexBatch(textBytes: walkedText).value(value)
            }
            if let values = rows[position].indexedValues, let value = values[index.number] {
                return value
            }
            return try decodeIndexedValues()[index.number] ?? .null
        }
    }

    /// The current row's value of index `number` as its key gave it, when the walk reads that
    /// index and can give its values: a column read without building a `String` (its text is in
    /// ``walkedText``).
    func walkedValue(ofIndex number: UInt16) -> SoupKeyValue? {
        walkedIndex == number ? rows[position].walkedValue : nil
    }

    /// Decodes the current row's index values: the plan's, once per row, or all of them when
    /// SQLite asks for a column the plan did not expect.
    private func decodeIndexedValues() throws -> [UInt16: SmartSQLValue] {
        let only = rows[position].indexedValues == nil ? readIndexes : nil
        var values = try reader.indexedValues(of: soup, entryId: entryId, only: only)
        // An index without a key for the row holds NULL: noted, so that it is not decoded again.
        for number in columnIndexNumbers where (only?.contains(number) ?? true) && values[number] == nil {
            values[number] = .null
        }
        rows[position].indexedValues = values
        return values
    }

    private func currentRecord() throws -> SoupRecordRow? {
        if let record = rows[position].record { return record }
        let record = try reader.record(of: soup, entryId: entryId)
        rows[position].record = record
        return record
    }

    // MARK: - Reading

    /// Reads the next batch, skipping empty ones, until a row is there or the walk is done.
    private func fill() throws {
        rows.removeAll(keepingCapacity: true)
        walkedText.removeAll(keepingCapacity: true)
        position = 0
        while rows.isEmpty {
            switch source {
            case .done:
                return
            case .records(let ids, let after) where readsRecord:
                let batch = try reader.records(
                    of: soup, ids: ids, descending: isDescending, after: after, limit: batchSize)
                rows = batch.map { Row(entryId: $0.entryId, record: $0) }
                source = batch.count < batchSize ? .done : .records(ids: ids, after: batch.last?.entryId)
            case .records(let ids, let after):
                let batch = try reader.recordIds(
                    of: soup, ids: ids, descending: isDescending, after: after, limit: batchSize)
                rows = batch.map { Row(entryId: $0) }
                source = batch.count < batchSize ? .done : .records(ids: ids, after: batch.last)
            case .recordIds(let ids):
                let batch = ids.prefix(batchSize)
                if readsRecord {
                    rows = try batch.compactMap { try reader.record(of: soup, entryId: $0) }.map {
                        Row(entryId: $0.entryId, record: $0)
                    }
                } else {
                    rows = try batch.flatMap {
                        try reader.recordIds(of: soup, ids: $0...$0, descending: false, after: nil, limit: 1)
                    }.map { Row(entryId: $0) }
                }
                source = batch.count < ids.count ? .recordIds(ids.dropFirst(batch.count)) : .done
            case .index(let index, let ranges, let after):
                guard let range = ranges.first else {
                    source = .done
                    return
                }
                let batch = try reader.indexEntries(
                    of: soup, index: index, range: range, descending: isDescending, after: after, limit: batchSize)
                rows = batch.entries.map { Row(entryId: $0.entryId, walkedValue: $0.value) }
                walkedText = batch.textBytes
                if let next = batch.next {
                    source = .index(index, ranges: ranges, after: next)
                } else {
                    source = ranges.count > 1 ? .index(index, ranges: ranges.dropFirst(), after: nil) : .done
                }
            }
            batchSize = min(batchSize * 4, Self.batchSizeMax)
        }
    }

    // MARK: - Operands

    /// The records to read for `plan`: a range of entry ids, or some ids.
    private static func recordsSource(_ plan: SoupTablePlan, _ arguments: [Argument]) -> Source {
        var low = Int64.min
        var high = Int64.max
        for (argument, value) in zip(plan.arguments.map(\.argument), arguments) {
            switch (argument, value) {
            case (.equal(let matchesNull), .single(let value)):
                switch SoupTableOperand.equality(value, affinity: .integer, matchesNull: matchesNull) {
                case .value(.integer(let id)): return .recordIds([id])
                case .null, .matchesNothing, .value: return .done
                case .unknown: break
                }
            case (.valueList, .list(let values)):
                var ids: [Int64] = []
                for value in values {
                    switch SoupTableOperand.equality(value, affinity: .integer, matchesNull: false) {
                    case .value(.integer(let id)): ids.append(id)
                    case .unknown: return .records(ids: nil, after: nil)
                    case .null, .matchesNothing, .value: continue
                    }
                }
                let sorted = Set(ids).sorted()
                return ids.isEmpty ? .done : .recordIds((plan.isDescending ? sorted.reversed() : sorted)[...])
            case (.lower(let isInclusive), .single(let value)), (.upper(let isInclusive), .single(let value)):
                let isLower = if case .lower = argument { true } else { false }
                switch SoupTableOperand.bound(value, affinity: .integer, isLower: isLower, isInclusive: isInclusive) {
                case .bound(let bound):
                    guard let id = inclusiveId(bound, isLower: isLower) else { return .done }
                    if isLower { low = max(low, id) } else { high = min(high, id) }
                case .matchesNothing: return .done
                case .open, .unknown: break
                }
            default:
                break
            }
        }
        guard low <= high else { return .done }
        return .records(ids: low == .min && high == .max ? nil : low...high, after: nil)
    }

    /// The entry id an integer bound includes at its end of the range, or `nil` when no id
    /// lies inside it (`> Int64.max`).
    private static func inclusiveId(_ bound: SoupIndexRange.Bound, isLower: Bool) -> Int64? {
        guard case .integer(let id) = bound.value else { return nil }
        if bound.isInclusive { return id }
        if isLower { return id == .max ? nil : id + 1 }
        return id == .min ? nil : id - 1
    }

    /// The index ranges to walk, in order, for `plan`; none when nothing can match.
    private static func indexRanges(
        _ plan: SoupTablePlan, _ arguments: [Argument], affinity: SoupTableColumn.Affinity, isDescending: Bool
    ) -> [SoupIndexRange] {
        switch plan.nullTest {
        case .isNull: return [.nulls]
        case .isNotNull: return [.between(lower: nil, upper: nil)]
        case nil: break
        }
        var lower: SoupIndexRange.Bound?
        var upper: SoupIndexRange.Bound?
        var isRange = false
        for (argument, value) in zip(plan.arguments.map(\.argument), arguments) {
            switch (argument, value) {
            case (.equal(let matchesNull), .single(let value)):
                switch SoupTableOperand.equality(value, affinity: affinity, matchesNull: matchesNull) {
                case .value(let operand): return [.equal(operand)]
                case .null: return [.nulls]
                case .matchesNothing: return []
                case .unknown: return [.between(lower: nil, upper: nil)]
                }
            case (.valueList, .list(let values)):
                return valueListRanges(values, affinity: affinity, isDescending: isDescending)
            case (.lower(let isInclusive), .single(let value)), (.upper(let isInclusive), .single(let value)):
                let isLower = if case .lower = argument { true } else { false }
                isRange = true
                switch SoupTableOperand.bound(value, affinity: affinity, isLower: isLower, isInclusive: isInclusive) {
                case .bound(let bound): if isLower { lower = bound } else { upper = bound }
                case .matchesNothing: return []
                case .open, .unknown: break
                }
            default:
                break
            }
        }
        return isRange ? [.between(lower: lower, upper: upper)] : [.all]
    }

    /// One equality range per distinct value of an `IN` list, in the walk's order.
    private static func valueListRanges(
        _ values: [SmartSQLValue?], affinity: SoupTableColumn.Affinity, isDescending: Bool
    ) -> [SoupIndexRange] {
        var operands: [SmartSQLValue] = []
        for value in values {
            switch SoupTableOperand.equality(value, affinity: affinity, matchesNull: false) {
            case .value(let operand): operands.append(operand)
            case .unknown: return [.between(lower: nil, upper: nil)]
            case .null, .matchesNothing: continue
            }
        }
        let sorted = Array(Set(operands)).sorted { $0.precedes($1) }
        return (isDescending ? sorted.reversed() : sorted).map(SoupIndexRange.equal)
    }
}
