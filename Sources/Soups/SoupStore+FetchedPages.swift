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
        assert(draft.payload == page.bytes, "the payload must be the serialized page")
        assert(page.bytes == JSONValue.array(records).serialized(), "the page must serialize the records")
        return try journal.write { writer in
            pageHandoff.offer(
                sequence: writer.nextSequence, payload: draft.payload,
                value: FetchedRecords(records: records, splices: page.splices))
            return try writer.append(draft)
        }
    }
}
