import Determinism
import LosslessJSON

@testable import Soups

/// The soup store's behaviour as plain dictionaries and sorts, for the randomized test.
///
/// It reuses the leaf rules that have tests of their own (path projection, index value
/// extraction and encoding, `LIKE`, the tokenizer and the match parser) and recomputes
/// everything else from the records on every query: which value each index holds for each
/// record (including the nulls an alter without re-index leaves), filters, order, paging,
/// selected paths and the dirty set. It shares no state, keys or query planning with the
/// store, so a wrong index entry or a wrong shortcut in the query engine shows as a
/// difference.
///
/// Every mutating method either succeeds or throws and leaves the model unchanged, which is
/// the store's contract too.
struct SoupModel {
    struct Soup {
        var name: String
        var specs: [IndexSpec]
        var records: [Int64: JSONValue] = [:]
        /// Per record, the indexes that hold null because an alter without re-index added
        /// them after the record was last saved.
        var stale: [Int64: Set<IndexSpec>] = [:]

        func firstSpec(on path: String) -> IndexSpec? {
            specs.first { $0.path == path }
        }
    }

    private(set) var soups: [String: Soup] = [:]
    private(set) var nextEntryId: Int64 = 1

    var soupNames: [String] {
        soups.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    // MARK: - Soups

    mutating func register(_ name: String, _ specs: [IndexSpec]) throws(SoupError) {
        guard !specs.isEmpty else { throw SoupError(.emptyIndexSpecs, name) }
        if soups[name] == nil { soups[name] = Soup(name: name, specs: specs) }
    }

    mutating func alter(_ name: String, _ specs: [IndexSpec], reIndex: Bool) throws(SoupError) {
        guard !specs.isEmpty else { throw SoupError(.emptyIndexSpecs, name) }
        var soup = try require(name)
        let added = Set(specs).subtracting(soup.specs)
        for entryId in soup.records.keys {
            var stale = soup.stale[entryId, default: []].intersection(specs)
            if !reIndex { stale.formUnion(added) }
            soup.stale[entryId] = stale
        }
        soup.specs = specs
        soups[name] = soup
    }

    mutating func reIndex(_ name: String, paths: [String]) throws(SoupError) {
        var soup = try require(name)
        for path in paths where soup.firstSpec(on: path) == nil { throw SoupError(.noIndexForPath, path) }
        for entryId in soup.records.keys {
            soup.stale[entryId] = soup.stale[entryId]?.filter { !paths.contains($0.path) }
        }
        soups[name] = soup
    }

    mutating func clear(_ name: String) throws(SoupError) {
        var soup = try require(name)
        soup.records = [:]
        soup.stale = [:]
        soups[name] = soup
    }

    mutating func drop(_ name: String) {
        soups[name] = nil
    }

    // MARK: - Records

    mutating func create(_ name: String, _ records: [JSONValue], at now: WallTime) throws(SoupError) -> [JSONValue] {
        var soup = try require(name)
        var stored: [JSONValue] = []
        for record in records {
            let saved = try stamp(record, entryId: nextEntryId, at: now)
            save(saved, nextEntryId, in: &soup)
            stored.append(saved)
        }
        soups[name] = soup
        return stored
    }

    mutating func update(_ name: String, _ record: JSONValue, entryId: Int64, at now: WallTime) throws(SoupError)
        -> JSONValue
    {
        var soup = try require(name)
        guard soup.records[entryId] != nil else { throw SoupError(.unknownEntry, "\(entryId)") }
        let saved = try stamp(record, entryId: entryId, at: now)
        save(saved, entryId, in: &soup)
        soups[name] = soup
        return saved
    }

    mutating func upsert(_ name: String, _ records: [JSONValue], externalIdPath: String?, at now: WallTime)
        throws(SoupError) -> [JSONValue]
    {
        var soup = try require(name)
        let path = externalIdPath == SoupStore.entryIdField ? nil : externalIdPath
        if let path, soup.firstSpec(on: path) == nil { throw SoupError(.externalIdPathNotIndexed, path) }
        var stored: [JSONValue] = []
        for record in records {
            guard case .object = record else { throw SoupError(.notAnObject, name) }
            var entryId = record[SoupStore.entryIdField]?.number?.int64Value
            if let path {
                // SmartStore refuses a record without a value at the external-id path.
                guard let value = SoupPath.project(record, path), value != .null else {
                    throw SoupError(.invalidQuery, path)
                }
                let ids = try Self.filter(.exact(path: path, value: value), in: soup)
                guard ids.count <= 1 else { throw SoupError(.duplicateExternalId, path) }
                entryId = ids.first
            } else if let id = entryId, soup.records[id] == nil {
                throw SoupError(.unknownEntry, "\(id)")
            }
            let id = entryId ?? nextEntryId
            let saved = try stamp(record, entryId: id, at: now)
            save(saved, id, in: &soup)
            stored.append(saved)
        }
        soups[name] = soup
        return stored
    }

    mutating func delete(_ name: String, ids: [Int64]) throws(SoupError) {
        var soup = try require(name)
        for entryId in ids { remove(entryId, from: &soup) }
        soups[name] = soup
    }

    mutating func deleteByQuery(_ spec: QuerySpec) throws(SoupError) -> Int {
        var soup = try require(spec.soupName)
        let ids = try Self.filter(spec.filter, in: soup)
        for entryId in ids { remove(entryId, from: &soup) }
        soups[spec.soupName] = soup
        return ids.count
    }

    // MARK: - Local changes

    /// Mobile Sync's reading of the flags: a local create sets all four, the action flags
    /// that are not this change's stay as they were, or `false` when missing.
    /// - Parameter localId: the number the id generator gives, which the caller tracks: the
    ///   generator is not rolled back when the create fails.
    mutating func createLocally(_ name: String, _ record: JSONValue, localId: UInt64, at now: WallTime)
        throws(SoupError) -> JSONValue
    {
        guard case .object(var fields) = record else { throw SoupError(.notAnObject, name) }
        if fields["Id"] == nil || fields["Id"] == .null { fields["Id"] = .string("local_\(localId)") }
        fields["__local__"] = true
        fields["__locally_created__"] = true
        fields["__locally_updated__"] = false
        fields["__locally_deleted__"] = false
        return try create(name, [.object(fields)], at: now)[0]
    }

    mutating func changeLocally(
        _ name: String, entryId: Int64, changes: [String: JSONValue]?, at now: WallTime
    ) throws(SoupError) -> JSONValue {
        let soup = try require(name)
        guard case .object(var fields) = soup.records[entryId] else { throw SoupError(.unknownEntry, "\(entryId)") }
        let flag = changes == nil ? "__locally_deleted__" : "__locally_updated__"
        fields.merge(changes ?? [:]) { _, new in new }
        fields["__local__"] = true
        fields[flag] = true
        for other in ["__locally_created__", "__locally_updated__", "__locally_deleted__"] where fields[other] == nil {
            fields[other] = false
        }
        return try update(name, .object(fields), entryId: entryId, at: now)
    }

    // MARK: - Queries

    func query(_ spec: QuerySpec, pageIndex: Int) throws(SoupError) -> [JSONValue] {
        let soup = try require(spec.soupName)
        guard (1...QuerySpec.pageSizeMax).contains(spec.pageSize), pageIndex >= 0 else {
            throw SoupError(.invalidQuery, "page")
        }
        let ordered = Self.order(try Self.filter(spec.filter, in: soup), spec, in: soup)
        let page = ordered.dropFirst(spec.pageSize * pageIndex).prefix(spec.pageSize)
        return page.map { entryId in
            let record = soup.records[entryId] ?? .null
            guard let paths = spec.selectPaths else { return record }
            return .array(paths.map { SoupPath.project(record, $0, keepsNull: true) ?? .null })
        }
    }

    func count(_ spec: QuerySpec) throws(SoupError) -> Int {
        try Self.filter(spec.filter, in: require(spec.soupName)).count
    }

    func dirtyRecords(_ name: String) throws(SoupError) -> [JSONValue] {
        try require(name).records.sorted { $0.key < $1.key }.map(\.value).filter {
            $0["__local__"] == .bool(true) || $0["__local__"] == .string("true")
        }
    }

    func retrieve(_ name: String, ids: [Int64]) throws(SoupError) -> [JSONValue] {
        let soup = try require(name)
        return ids.compactMap { soup.records[$0] }
    }

    func lookupSoupEntryId(_ name: String, path: String, value: JSONValue) throws(SoupError) -> Int64? {
        let ids = try Self.filter(.exact(path: path, value: value), in: require(name))
        guard ids.count <= 1 else { throw SoupError(.duplicateExternalId, path) }
        return ids.first
    }

    func indexSpecs(_ name: String) throws(SoupError) -> [IndexSpec] {
        try require(name).specs
    }

    /// The ids matching `filter`, in `_soupEntryId` order.
    static func filter(_ filter: QuerySpec.Filter, in soup: Soup) throws(SoupError) -> [Int64] {
        let ids = soup.records.keys.sorted()
        switch filter {
        case .all:
            return ids
        case .exact(let path, let value):
            let spec = try requireSpec(path, in: soup)
            guard let operand = IndexValue.operand(value, for: spec.type, rounding: .exact) else { return [] }
            return ids.filter { indexValue($0, spec, in: soup) == operand }
        case .range(let path, let lower, let upper):
            let spec = try requireSpec(path, in: soup)
            if lower == nil, upper == nil { return ids }
            let low = lower.map { IndexValue.operand($0, for: spec.type, rounding: .up) }
            let high = upper.map { IndexValue.operand($0, for: spec.type, rounding: .down) }
            if low == .some(nil) || high == .some(nil) { return [] }
            return ids.filter { entryId in
                let value = indexValue(entryId, spec, in: soup)
                guard value != .null else { return false }
                if let low = low ?? nil, value.encoded.lexicographicallyPrecedes(low.encoded) { return false }
                if let high = high ?? nil, high.encoded.lexicographicallyPrecedes(value.encoded) { return false }
                return true
            }
        case .like(let path, let pattern):
            let spec = try requireSpec(path, in: soup)
            let like = LikePattern(pattern)
            return ids.filter { indexValue($0, spec, in: soup).likeText.map(like.matches) ?? false }
        case .smart:
            // The model answers the record queries; SmartSQL's suites test smart queries.
            throw SoupError(.invalidQuery, "the model runs no smart query")
        case .match(let path, let text):
            let specs = soup.specs.filter { $0.type == .fullText && (path == nil || $0.path == path) }
            guard !specs.isEmpty else { throw SoupError(.noIndexForPath, path ?? "any") }
            let expression = try MatchExpression.parse(text)
            try checkColumns(expression, in: soup)
            return ids.filter { entryId in
                let fields = specs.map { spec in
                    (
                        path: spec.path,
                        tokens: FullTextTokenizer.tokens(indexValue(entryId, spec, in: soup).likeText ?? "")
                    )
                }
                return matches(expression, fields)
            }
        }
    }

    // MARK: - Helpers

    private func require(_ name: String) throws(SoupError) -> Soup {
        guard let soup = soups[name] else { throw SoupError(.unknownSoup, name) }
        return soup
    }

    private static func requireSpec(_ path: String, in soup: Soup) throws(SoupError) -> IndexSpec {
        guard let spec = soup.firstSpec(on: path) else { throw SoupError(.noIndexForPath, path) }
        return spec
    }

    private func stamp(_ record: JSONValue, entryId: Int64, at now: WallTime) throws(SoupError) -> JSONValue {
        guard case .object(var fields) = record else { throw SoupError(.notAnObject, "record") }
        fields[SoupStore.entryIdField] = .number(JSONNumber(entryId))
        fields[SoupStore.lastModifiedDateField] = .number(JSONNumber(now.millisecondsSinceEpoch))
        return .object(fields)
    }

    private mutating func save(_ record: JSONValue, _ entryId: Int64, in soup: inout Soup) {
        soup.records[entryId] = record
        soup.stale[entryId] = nil
        nextEntryId = max(nextEntryId, entryId + 1)
    }

    private func remove(_ entryId: Int64, from soup: inout Soup) {
        soup.records[entryId] = nil
        soup.stale[entryId] = nil
    }

    /// What the index `spec` holds for a record.
    private static func indexValue(_ entryId: Int64, _ spec: IndexSpec, in soup: Soup) -> IndexValue {
        guard let record = soup.records[entryId], soup.stale[entryId]?.contains(spec) != true else { return .null }
        return IndexValue.extract(SoupPath.project(record, spec.path), as: spec.type)
    }

    /// SQLite's order: by the index's value when the path has one, else by `json_extract`;
    /// ties by `_soupEntryId`; descending is the exact reverse.
    private static func order(_ ids: [Int64], _ spec: QuerySpec, in soup: Soup) -> [Int64] {
        guard let path = spec.orderPath else { return ids }
        let keys = Dictionary(
            uniqueKeysWithValues: ids.map { entryId in
                let value =
                    soup.firstSpec(on: path).map { indexValue(entryId, $0, in: soup) }
                    ?? IndexValue.extract(SoupPath.project(soup.records[entryId] ?? .null, path), as: .json1)
                return (entryId, value.encoded)
            })
        let ascending = ids.sorted { lhs, rhs in
            let (left, right) = (keys[lhs] ?? [], keys[rhs] ?? [])
            return left == right ? lhs < rhs : left.lexicographicallyPrecedes(right)
        }
        return spec.order == .descending ? ascending.reversed() : ascending
    }

    /// Whether the record whose `full_text` fields hold these tokens matches: a term anywhere,
    /// a phrase as consecutive tokens of one field, a column filter only in its path's fields.
    private static func matches(_ expression: MatchExpression, _ fields: [(path: String, tokens: [String])]) -> Bool {
        switch expression {
        case .term(let token, let isPrefix):
            return fields.contains { field in
                field.tokens.contains { isPrefix ? $0.utf8.starts(with: token.utf8) : $0 == token }
            }
        case .phrase(let phrase):
            return fields.contains { field in
                guard field.tokens.count >= phrase.count else { return false }
                return (0...(field.tokens.count - phrase.count)).contains { start in
                    phrase.indices.allSatisfy { index in
                        let token = field.tokens[start + index]
                        let wanted = phrase[index]
                        return wanted.isPrefix ? token.utf8.starts(with: wanted.text.utf8) : token == wanted.text
                    }
                }
            }
        case .and(let lhs, let rhs): return matches(lhs, fields) && matches(rhs, fields)
        case .or(let lhs, let rhs): return matches(lhs, fields) || matches(rhs, fields)
        case .not(let lhs, let rhs): return matches(lhs, fields) && !matches(rhs, fields)
        case .column(_, let path, let inner): return matches(inner, fields.filter { $0.path == path })
        }
    }

    /// Refuses a column filter naming another soup or a path without a `full_text` index, as the
    /// store does before it reads any record.
    private static func checkColumns(_ expression: MatchExpression, in soup: Soup) throws(SoupError) {
        switch expression {
        case .term, .phrase:
            return
        case .and(let lhs, let rhs), .or(let lhs, let rhs), .not(let lhs, let rhs):
            try checkColumns(lhs, in: soup)
            try checkColumns(rhs, in: soup)
        case .column(let soupName, let path, let inner):
            guard soupName == soup.name else { throw SoupError(.invalidQuery, soupName) }
            guard soup.specs.contains(where: { $0.type == .fullText && $0.path == path }) else {
                throw SoupError(.noIndexForPath, path)
            }
            try checkColumns(inner, in: soup)
        }
    }
}
