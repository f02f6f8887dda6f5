package import EventJournal
package import SyncCore

extension SoupStore {
    /// Appends a sync-down page entry and hands its records, already parsed, to the soup fold
    /// of that entry, which would otherwise parse the page again.
    ///
    /// - Parameters:
    ///   - draft: the page entry; its payload must be `JSONValue.array(records).serialized()`.
    ///   - records: the page's records.
    /// - Returns: the appended entry.
    /// - Throws: what `Journal.write` and the projections throw; nothing is appended then.
    @discardableResult
    package func appendFetchedPage(_ draft: JournalEntry.Draft, records: [JSONValue]) throws -> JournalEntry {
        assert(draft.payload == JSONValue.array(records).serialized(), "the payload must be the records serialized")
        return try journal.write { writer in
            pageHandoff.offer(sequence: writer.nextSequence, payload: draft.payload, value: .array(records))
            return try writer.append(draft)
        }
    }
}
