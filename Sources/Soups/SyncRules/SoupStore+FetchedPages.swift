package import EventJournal
package import LosslessJSON

extension SoupStore {
    /// Appends sync-down page entries in one write transaction and hands each page's records,
    /// already parsed, to the soup fold of its entry, which would otherwise parse the page again
    /// and serialize each record anew.
    ///
    /// - Returns: each appended entry, in order.
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
