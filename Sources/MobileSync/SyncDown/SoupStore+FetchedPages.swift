package import EventJournal
package import LosslessJSON
package import Soups

extension SoupStore {
    /// Appends sync-down page entries in one write transaction and hands each page's records,
    /// already parsed, to the page fold of its entry (``ServerPageRule``), which would otherwise
    /// parse the page again and serialize each record anew.
    ///
    /// - Returns: how many records of each page the fold left alone (decision 0325), in order.
    /// - Throws: what `Journal.write` and the projections throw; nothing is appended then.
    @discardableResult
    package func appendFetchedPages(_ pages: [FetchedPage]) throws -> [Int] {
        for fetched in pages {
            assert(fetched.draft.payload == fetched.page.bytes, "the payload must be the serialized page")
            assert(
                fetched.page.bytes == JSONValue.array(fetched.records).serialized(),
                "the page must serialize the records")
        }
        let handoff = SyncFoldRules.pageRule(of: journal).handoff
        let receipts = try journal.write { writer in
            try pages.map { fetched in
                // One offer at a time: the fold of this append takes it before the next is made.
                let handed = FetchedRecords(records: fetched.records, splices: fetched.page.splices)
                handoff.offer(sequence: writer.nextSequence, payload: fetched.draft.payload, value: handed)
                _ = try writer.append(fetched.draft)
                return handed.receipt
            }
        }
        // After the commit: the pages are durable whatever becomes of a dictionary.
        compressRecordsIfDue()
        return receipts.map { receipt in
            guard let count = receipt.leftAlone else { preconditionFailure("the page fold took every page it folded") }
            return count
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
