package import EventJournal
package import SyncCore

extension SoupStore {
    /// Appends a sync-down page entry and hands its records, already parsed, to the soup fold
    /// of that entry, which would otherwise parse the page again and serialize each record anew.
    ///
    /// - Parameters:
    ///   - draft: the page entry; its payload must be `page.bytes`.
    ///   - page: the records serialized.
    ///   - records: the page's records, which `page` serializes.
    /// - Returns: the appended entry.
    /// - Throws: what `Journal.write` and the projections throw; nothing is appended then.
    @discardableResult
    package func appendFetchedPage(_ draft: JournalEntry.Draft, page: SerializedPage, records: [JSONValue]) throws
        -> JournalEntry
    {
        try appendFetchedPages([FetchedPage(draft: draft, page: page, records: records)])[0]
    }

    /// Appends several sync-down page entries in one write transaction, each handed over as
    /// ``appendFetchedPage(_:page:records:)`` does.
    ///
    /// - Returns: the appended entries, in order.
    /// - Throws: what `Journal.write` and the projections throw; nothing is appended then.
    @discardableResult
    package func appendFetchedPages(_ pages: [FetchedPage]) throws -> [JournalEntry] {
        for fetched in pages {
            assert(fetched.draft.payload == fetched.page.bytes, "the payload must be the serialized page")
            assert(
                fetched.page.bytes == JSONValue.array(fetched.records).serialized(),
                "the page must serialize the records")
        }
        return try journal.write { writer in
            try pages.map { fetched in
                // One offer at a time: the fold of this append takes it before the next is made.
                pageHandoff.offer(
                    sequence: writer.nextSequence, payload: fetched.draft.payload,
                    value: FetchedRecords(records: fetched.records, splices: fetched.page.splices))
                return try writer.append(fetched.draft)
            }
        }
    }
}

/// A fetched page ready to append: its entry, its serialization and its records.
package struct FetchedPage: Sendable {
    package var draft: JournalEntry.Draft
    package var page: SerializedPage
    package var records: [JSONValue]

    package init(draft: JournalEntry.Draft, page: SerializedPage, records: [JSONValue]) {
        self.draft = draft
        self.page = page
        self.records = records
    }
}
