import LMDBStore
import LosslessJSON

/// Runs a ``QuerySpec`` against the projection's databases.
///
/// Exact, range and like filters are a walk over one key range of one index
/// (``IndexWalk``); match reads the token keys. How a page is produced:
///
/// | filter | no order | ordered by the filter's path | ordered by another path |
/// |---|---|---|---|
/// | all | record keys in order, stops at the page | that index, stops at the page | scan, top k |
/// | exact | the walk (already in id order), stops at the page | the walk, stops at the page | top k of the walk |
/// | range, like | the walk, top k by id | the walk, stops at the page | top k of the walk |
/// | match | token sets, then sort | — | top k of the matches |
///
/// "Top k" keeps only the `offset + pageSize` best sort keys while streaming, so no query
/// holds more than the page and its offset in memory besides match's id sets; only `all`
/// and orderings on paths without an index read the records, one at a time.
struct QueryEngine {
    let state: SoupState
    let soup: SoupCatalogEntry

    /// The ids of one page of `spec`'s results, in result order.
    func pageIds(_ spec: QuerySpec, pageIndex: Int) throws -> [Int64] {
        let offset = try Self.offset(pageSize: spec.pageSize, pageIndex: pageIndex)
        var page = Page(offset: offset, size: spec.pageSize)
        // How many results a page needs in all; saturating, since a far page of a small soup is valid.
        let needed = offset > Int.max - spec.pageSize ? Int.max : offset + spec.pageSize
        let descending = spec.order == .descending
        let orderIndex = spec.orderPath.flatMap(soup.index(on:))
        if let orderPath = spec.orderPath, orderIndex?.spec.type == .hashed {
            _ = try requireIndex(orderPath, answering: "an order")
        }
        if case .match = spec.filter {
            let ids = try filterIds(spec.filter) ?? []
            guard let orderPath = spec.orderPath else {
                for entryId in ids.sorted() where !page.offer(entryId) { break }
                return page.ids
            }
            return try orderedPage(ids, orderPath, descending: descending, page: page, needed: needed)
        }
        guard let walk = try IndexWalk(spec.filter, engine: self) else {
            // Every record: walk the record keys, the order index, or scan for sort keys.
            if spec.orderPath == nil {
                try state.forEachRecordId(soup.soupId) { page.offer($0) }
            } else if let orderIndex {
                try IndexWalk(wholeIndex: orderIndex, engine: self).forEach(descending: descending) { page.offer($0) }
            } else if let orderPath = spec.orderPath {
                return try orderedPage(nil, orderPath, descending: descending, page: page, needed: needed)
            }
            return page.ids
        }
        guard let orderPath = spec.orderPath else {
            if walk.isInIdOrder {
                try walk.forEach(descending: false) { page.offer($0) }
                return page.ids
            }
            var smallest = TopSelection<Int64>(count: needed, by: <)
            try walk.forEach(descending: false) { smallest.insert($0) }
            for entryId in smallest.sorted() where !page.offer(entryId) { break }
            return page.ids
        }
        if orderIndex?.id == walk.index.id {
            try walk.forEach(descending: descending) { page.offer($0) }
            return page.ids
        }
        var ids: [Int64] = []
        try walk.forEach(descending: false) {
            ids.append($0)
            return true
        }
        return try orderedPage(ids, orderPath, descending: descending, page: page, needed: needed)
    }

    /// How many results come before page `pageIndex`: the rule every query kind pages by.
    /// - Throws: ``SoupError/Code/invalidQuery`` for a page size outside 1 through
    ///   ``QuerySpec/pageSizeMax``, or a negative or overflowing page index.
    static func offset(pageSize: Int, pageIndex: Int) throws -> Int {
        guard (1...QuerySpec.pageSizeMax).contains(pageSize) else {
            throw SoupError(.invalidQuery, "the page size must be 1 to \(QuerySpec.pageSizeMax), not \(pageSize)")
        }
        let (offset, overflow) = pageSize.multipliedReportingOverflow(by: pageIndex)
        guard pageIndex >= 0, !overflow else {
            throw SoupError(.invalidQuery, "the page index must be 0 or more and small enough, not \(pageIndex)")
        }
        return offset
    }

    /// How many records match `filter`.
    func count(_ filter: QuerySpec.Filter) throws -> Int {
        var count = 0
        if case .match = filter {
            return try filterIds(filter)?.count ?? 0
        } else if let walk = try IndexWalk(filter, engine: self) {
            try walk.forEach(descending: false) { _ in
                count += 1
                return true
            }
        } else {
            try state.forEachRecordId(soup.soupId) { _ in
                count += 1
                return true
            }
        }
        return count
    }

    // MARK: - Filters

    /// The ids matching `filter` (no duplicates, in no particular order), or `nil` for every record.
    func filterIds(_ filter: QuerySpec.Filter) throws -> [Int64]? {
        if case .match(let path, let expression) = filter {
            let indexes = soup.indexes.filter { $0.spec.type == .fullText && (path == nil || $0.spec.path == path) }
            guard !indexes.isEmpty else {
                throw SoupError(
                    .noIndexForPath, "soup '\(soup.name)' has no full_text index on '\(path ?? "any path")'")
            }
            return Array(try matchIds(MatchExpression.parse(expression), indexes))
        }
        guard let walk = try IndexWalk(filter, engine: self) else { return nil }
        var ids: [Int64] = []
        try walk.forEach(descending: false) {
            ids.append($0)
            return true
        }
        return ids
    }

    func requireIndex(_ path: String) throws -> SoupCatalogEntry.CatalogIndex {
        guard let index = soup.index(on: path) else {
            throw SoupError(.noIndexForPath, "soup '\(soup.name)' has no index on '\(path)'")
        }
        return index
    }

    /// The index on `path`, which must keep its values' order to answer `question` (a range,
    /// a like, an order): a ``IndexType/hashed`` index does not.
    func requireIndex(_ path: String, answering question: String) throws -> SoupCatalogEntry.CatalogIndex {
        let index = try requireIndex(path)
        guard index.spec.type != .hashed else {
            throw SoupError(
                .invalidQuery,
                "the index on '\(path)' of soup '\(soup.name)' is hashed: it answers exact matches only, not \(question)"
            )
        }
        return index
    }

    /// The records matching `expression` in any of `indexes` (the `full_text` indexes the query
    /// may look in; a column filter narrows them to its path).
    private func matchIds(_ expression: MatchExpression, _ indexes: [SoupCatalogEntry.CatalogIndex]) throws
        -> Set<Int64>
    {
        switch expression {
        case .term(let token, let isPrefix):
            var ids = Set<Int64>()
            for index in indexes { ids.formUnion(try tokenIds(token, isPrefix: isPrefix, index)) }
            return ids
        case .phrase(let tokens):
            return try phraseIds(tokens, indexes)
        case .and(let lhs, let rhs):
            return try matchIds(lhs, indexes).intersection(matchIds(rhs, indexes))
        case .or(let lhs, let rhs):
            return try matchIds(lhs, indexes).union(matchIds(rhs, indexes))
        case .not(let lhs, let rhs):
            return try matchIds(lhs, indexes).subtracting(matchIds(rhs, indexes))
        case .column(let soupName, let path, let inner):
            guard soupName == soup.name else {
                throw SoupError(
                    .invalidQuery, "the match expression names soup '\(soupName)' in a query on soup '\(soup.name)'")
            }
            guard soup.indexes.contains(where: { $0.spec.type == .fullText && $0.spec.path == path }) else {
                throw SoupError(.noIndexForPath, "soup '\(soup.name)' has no full_text index on '\(path)'")
            }
            return try matchIds(inner, indexes.filter { $0.spec.path == path })
        }
    }

    /// The records having `token` (or a token starting with it) in `index`.
    private func tokenIds(_ token: String, isPrefix: Bool, _ index: SoupCatalogEntry.CatalogIndex) throws -> [Int64] {
        var prefix = SoupDatabases.indexPrefix(soup.soupId, index.id) + Array(token.utf8)
        if !isPrefix { prefix.append(0) }
        return try ids(withPrefix: prefix, in: state.databases.fullText)
    }

    /// The records in which one of `indexes` holds the phrase's tokens one after another.
    ///
    /// The token keys keep no positions, so the keys find the records having every token in
    /// one field, and the field's text, tokenized again as it was indexed, decides adjacency.
    /// - Complexity: O(candidates × field length) beyond the key lookups.
    private func phraseIds(_ tokens: [MatchExpression.PhraseToken], _ indexes: [SoupCatalogEntry.CatalogIndex])
        throws -> Set<Int64>
    {
        var found = Set<Int64>()
        for index in indexes {
            var candidates: Set<Int64>?
            for token in tokens {
                let ids = Set(try tokenIds(token.text, isPrefix: token.isPrefix, index))
                candidates = candidates.map { $0.intersection(ids) } ?? ids
            }
            for entryId in (candidates ?? []).subtracting(found) {
                guard let record = try state.record(soup.soupId, entryId) else { continue }
                let text = IndexEntries.fullTextTokens(of: record, index: index)
                if Self.contains(text, phrase: tokens) { found.insert(entryId) }
            }
        }
        return found
    }

    /// Whether `tokens` holds the phrase as a run of consecutive tokens.
    static func contains(_ tokens: [String], phrase: [MatchExpression.PhraseToken]) -> Bool {
        guard !phrase.isEmpty, tokens.count >= phrase.count else { return false }
        return (0...(tokens.count - phrase.count)).contains { start in
            phrase.indices.allSatisfy { phrase[$0].matches(tokens[start + $0]) }
        }
    }

    func ids(withPrefix prefix: [UInt8], in database: Database? = nil) throws -> [Int64] {
        var ids: [Int64] = []
        try state.transaction.withCursor(database ?? state.databases.index) { cursor in
            try cursor.forEach(in: .prefix(prefix)) { key, _ in
                ids.append(SoupDatabases.entryId(ofKey: key))
                return true
            }
        }
        return ids
    }

    // MARK: - Ordering

    /// The page of `candidates` (every record when `nil`) ordered by `path`, keeping only the
    /// best `offset + size` sort keys (encoded value, then entry id) while streaming.
    private func orderedPage(
        _ candidates: [Int64]?, _ path: String, descending: Bool, page: Page, needed: Int
    ) throws -> [Int64] {
        var page = page
        var best = TopSelection<[UInt8]>(count: needed) {
            descending ? $1.lexicographicallyPrecedes($0) : $0.lexicographicallyPrecedes($1)
        }
        try forEachSortKey(path, candidates) { best.insert($0) }
        for key in best.sorted() where !page.offer(SoupDatabases.entryId(ofKey: key)) { break }
        return page.ids
    }

    /// Visits the sort keys on `path` of `candidates`, or of every record.
    private func forEachSortKey(_ path: String, _ candidates: [Int64]?, _ body: ([UInt8]) -> Void) throws {
        if let index = soup.index(on: path), let candidates {
            for entryId in candidates {
                let entries = try state.indexEntries(soup.soupId, entryId)
                if let key = entries.indexKeys.first(where: { SoupDatabases.indexId(ofKey: $0) == index.id }) {
                    body(Array(key.dropFirst(6)))
                }
            }
            return
        }
        func visit(_ record: JSONValue, _ entryId: Int64) {
            var key = IndexValue.extract(SoupPath.project(record, path), as: .json1).encoded
            appendBigEndian(UInt64(bitPattern: entryId), to: &key)
            body(key)
        }
        guard let candidates else {
            try state.forEachRecord(soup.soupId) { entryId, record in
                visit(record, entryId)
                return true
            }
            return
        }
        for entryId in candidates {
            if let record = try state.record(soup.soupId, entryId) { visit(record, entryId) }
        }
    }
}
