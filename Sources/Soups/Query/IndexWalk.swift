import LMDBStore
import LosslessJSON

/// The key range of one index that an exact, range or like filter reads, and the filter's
/// test on values where the range alone does not decide (like).
///
/// Index keys are `prefix · encoded value · entryId`, and encoded values are prefix-free, so
/// every value's keys form one contiguous run: the keys of the values from `a` to `b`
/// (inclusive) run from `prefix · a` to `prefix · b · FF…FF`. A walk therefore reads only
/// the matching keys, in value order (ties by entry id), forward or backward, and can stop
/// as soon as a page is full.
struct IndexWalk {
    let state: SoupState
    let index: SoupCatalogEntry.CatalogIndex
    /// The keys to read, or `nil` when no value can match (an operand the column's type
    /// cannot hold, such as text compared with an integer index).
    let range: KeyRange?
    let like: LikePattern?
    /// Whether the walk yields entry ids in increasing order: true for exact filters, whose
    /// keys all hold one value.
    let isInIdOrder: Bool

    /// The walk for `filter`, or `nil` for filters that match every record (`all`, and a
    /// range open at both ends).
    /// - Throws: ``SoupError/Code/noIndexForPath``.
    init?(_ filter: QuerySpec.Filter, engine: QueryEngine) throws {
        let prefix: [UInt8]
        switch filter {
        case .all:
            return nil
        case .range(let path, nil, nil):
            // Open at both ends is SmartStore's "no WHERE clause", but the path must still be indexed.
            _ = try engine.requireIndex(path)
            return nil
        case .exact(let path, let value):
            index = try engine.requireIndex(path)
            prefix = SoupDatabases.indexPrefix(engine.soup.soupId, index.id)
            var operand = IndexValue.operand(value, for: index.spec.type, rounding: .exact)
            if index.spec.type == .hashed { operand = try operand?.digested(in: engine.state.transaction) }
            range = operand.map {
                KeyRange(from: prefix + $0.encoded, to: Self.lastKey(prefix, $0), includesUpperBound: true)
            }
            like = nil
        case .range(let path, let lower, let upper):
            index = try engine.requireIndex(path, answering: "a range")
            prefix = SoupDatabases.indexPrefix(engine.soup.soupId, index.id)
            range = Self.range(prefix, index.spec.type, lower: lower, upper: upper)
            like = nil
        case .like(let path, let pattern):
            index = try engine.requireIndex(path, answering: "a like")
            prefix = SoupDatabases.indexPrefix(engine.soup.soupId, index.id)
            range = Self.nonNullRange(prefix)
            like = LikePattern(pattern)
        case .match:
            preconditionFailure("match filters read the token keys, not an index range")
        case .smart:
            throw SoupError(.invalidQuery, "a smart query gives rows, not records: this call takes the other kinds")
        }
        state = engine.state
        isInIdOrder = if case .exact = filter { true } else { false }
    }

    /// A walk over every key of `index`, nulls included.
    init(wholeIndex index: SoupCatalogEntry.CatalogIndex, engine: QueryEngine) {
        state = engine.state
        self.index = index
        range = .prefix(SoupDatabases.indexPrefix(engine.soup.soupId, index.id))
        like = nil
        isInIdOrder = false
    }

    /// Visits the matching entry ids in index order, or its reverse, until `body` returns `false`.
    func forEach(descending: Bool, _ body: (Int64) throws -> Bool) throws {
        guard let range else { return }
        let valueStart = SoupDatabases.indexPrefix(0, 0).count
        let numbersAreIntegers = index.spec.type == .integer
        try state.transaction.withCursor(state.databases.index) { cursor in
            try cursor.forEach(in: range, reverse: descending) { key, _ in
                if let like {
                    let bytes = key[valueStart..<(key.count - 8)]
                    guard let text = IndexValue.decode(bytes, numbersAreIntegers: numbersAreIntegers)?.value.likeText,
                        like.matches(text)
                    else { return true }
                }
                return try body(SoupDatabases.entryId(ofKey: key))
            }
        }
    }

    // MARK: - Key ranges

    /// The last possible key holding `value`: its keys differ only in the entry id.
    private static func lastKey(_ prefix: [UInt8], _ value: IndexValue) -> [UInt8] {
        prefix + value.encoded + [UInt8](repeating: 0xFF, count: 8)
    }

    /// Every non-null key: SQL's comparisons and `LIKE` are never true for NULL.
    private static func nonNullRange(_ prefix: [UInt8]) -> KeyRange {
        let whole = KeyRange.prefix(prefix)
        return KeyRange(from: prefix + [IndexValue.nullTag + 1], to: whole.upperBound)
    }

    private static func range(_ prefix: [UInt8], _ type: IndexType, lower: JSONValue?, upper: JSONValue?) -> KeyRange? {
        var range = nonNullRange(prefix)
        if let lower {
            guard let operand = IndexValue.operand(lower, for: type, rounding: .up) else { return nil }
            range.lowerBound = prefix + operand.encoded
        }
        if let upper {
            guard let operand = IndexValue.operand(upper, for: type, rounding: .down) else { return nil }
            range.upperBound = lastKey(prefix, operand)
            range.includesUpperBound = true
        }
        return range
    }
}
