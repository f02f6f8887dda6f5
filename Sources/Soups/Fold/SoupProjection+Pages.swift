package import EventJournal
import LMDBStore
package import LosslessJSON

/// A soup as a reader that must not hold its records sees it: indexes and counts only.
package struct SoupSummary: Sendable {
    package var name: String
    package var indexes: [IndexSpec]
    package var recordCount: Int
    package var dirtyCount: Int
    /// The first dirty records' `_soupEntryId`s, in order, at most the bound asked for.
    package var dirtyIds: [Int64]
}

/// One page of a soup's records in `_soupEntryId` order.
package struct SoupRecordsPage: Sendable {
    package var indexes: [IndexSpec]
    /// The records, each with its `_soupEntryId`.
    package var records: [(entryId: Int64, record: JSONValue)]
    /// Whether records follow the last one of this page.
    package var hasMore: Bool
}

extension SoupProjection {
    /// The soups of `context` with their record and dirty counts, for readers that page their
    /// records (the web inspector) rather than describe them all (``describeState(in:filter:)``).
    ///
    /// Counting walks the soup's record keys without reading a record.
    /// - Parameters:
    ///   - context: the state, today's or a past one folded by `Journal.withState`.
    ///   - soup: that soup only, when given.
    ///   - dirtyIdsMax: how many dirty `_soupEntryId`s each summary lists.
    /// - Throws: ``SoupError/Code/unknownSoup`` when `soup` does not exist in this state.
    package static func summaries(in context: ProjectionContext, soup: String?, dirtyIdsMax: Int) throws
        -> [SoupSummary]
    {
        let state = SoupState(transaction: context.transaction, databases: SoupDatabases.of(context))
        let names: [String]
        if let soup {
            guard try state.catalogEntry(soup) != nil else {
                throw SoupError(.unknownSoup, "no soup named '\(soup)' in this state")
            }
            names = [soup]
        } else {
            names = try state.soupNames()
        }
        return try names.map { name in
            let entry = try state.requireSoup(name)
            let prefix = KeyRange.prefix(SoupDatabases.soupPrefix(entry.soupId))
            var recordCount = 0
            // Counting needs no record opened: a sealed store would decrypt every one.
            try state.transaction.withCursor(state.databases.records) { cursor in
                try cursor.forEachKeyInPlace(in: prefix) { _ in
                    recordCount += 1
                    return true
                }
            }
            var dirtyCount = 0
            var dirtyIds: [Int64] = []
            try state.transaction.withCursor(state.databases.dirty) { cursor in
                try cursor.forEach(in: prefix) { key, _ in
                    dirtyCount += 1
                    if dirtyIds.count < dirtyIdsMax { dirtyIds.append(SoupDatabases.entryId(ofKey: key)) }
                    return true
                }
            }
            return SoupSummary(
                name: name, indexes: entry.specs, recordCount: recordCount, dirtyCount: dirtyCount, dirtyIds: dirtyIds)
        }
    }

    /// At most `limit` records of `soup` after `_soupEntryId` `after`, in `_soupEntryId` order:
    /// one range read of the records database, whatever the soup's size.
    ///
    /// - Parameters:
    ///   - context: the state, today's or a past one folded by `Journal.withState`.
    ///   - soup: the soup's name.
    ///   - after: the last `_soupEntryId` of the page before; `nil` for the first page.
    ///   - limit: the most records to return, at least 1.
    /// - Throws: ``SoupError/Code/unknownSoup`` when `soup` does not exist in this state.
    package static func recordsPage(in context: ProjectionContext, soup: String, after: Int64?, limit: Int) throws
        -> SoupRecordsPage
    {
        precondition(limit > 0)
        let state = SoupState(transaction: context.transaction, databases: SoupDatabases.of(context))
        guard let entry = try state.catalogEntry(soup) else {
            throw SoupError(.unknownSoup, "no soup named '\(soup)' in this state")
        }
        // One more than asked says whether a next page exists.
        let rows = try ProjectionSoupReader(state: state).records(
            of: ProjectionSoupReader.smartSoup(entry), ids: nil, descending: false, after: after, limit: limit + 1)
        return SoupRecordsPage(
            indexes: entry.specs,
            records: try rows.prefix(limit).map { ($0.entryId, try SoupState.parse($0.json)) },
            hasMore: rows.count > limit)
    }

    /// Visits the dirty records of `soup` (the dirty set, in `_soupEntryId` order) until `body`
    /// returns `false`, reading only those records.
    ///
    /// - Parameters:
    ///   - context: the state, today's or a past one folded by `Journal.withState`.
    ///   - soup: the soup's name.
    ///   - body: called with each dirty record's `_soupEntryId` and the record.
    /// - Throws: ``SoupError/Code/unknownSoup`` when `soup` does not exist in this state.
    package static func forEachDirtyRecord(
        in context: ProjectionContext, soup: String, _ body: (Int64, JSONValue) throws -> Bool
    ) throws {
        let state = SoupState(transaction: context.transaction, databases: SoupDatabases.of(context))
        guard let entry = try state.catalogEntry(soup) else {
            throw SoupError(.unknownSoup, "no soup named '\(soup)' in this state")
        }
        try state.transaction.withCursor(state.databases.dirty) { cursor in
            try cursor.forEach(in: .prefix(SoupDatabases.soupPrefix(entry.soupId))) { key, _ in
                let entryId = SoupDatabases.entryId(ofKey: key)
                guard let record = try state.record(entry.soupId, entryId) else { return true }
                return try body(entryId, record)
            }
        }
    }
}
