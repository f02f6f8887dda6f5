import EventJournal
import LosslessJSON

/// A `soup.saved` entry's payload as the fold parses it: the value, where each record stands
/// in the payload, and which members of each record were built.
///
/// Each record is stored as its bytes from the payload, so the fold builds of each record only
/// the members it reads (``SoupCatalogEntry/foldedRecordMembers``) and checks and skips the
/// others; ``keptMembers`` says which, so a parse made for one state of a soup is never used
/// for another (decision 0201).
struct ParsedSave: Sendable {
    /// `{soup, records}`, each record holding only ``keptMembers`` when they are given.
    var value: JSONValue
    /// Each record's bytes, as they stand in the payload, in order.
    var recordBytes: [[UInt8]]
    /// The members each record kept, or `nil` for records parsed whole.
    var keptMembers: [String]?
    /// Each record's index entries, computed ahead of the fold for the soup as the decoder
    /// knew it (``computeIndexEntries(in:)``); `nil` when they were not.
    private var indexed: (soup: SoupCatalogEntry, entries: [IndexEntries])?

    /// Parses `entry`'s payload, keeping of each record only `keepingMembers` (`nil`: all).
    /// - Throws: `JSONParseError` for a malformed payload.
    init(_ entry: JournalEntry, keepingMembers kept: [String]?) throws {
        let parsed = try JSONValue.parse(entry.payload, recordingElementSpansOf: "records", keepingMembers: kept)
        value = parsed.value
        recordBytes = parsed.spans.map { Array(entry.payload[$0]) }
        keptMembers = kept
    }

    /// Computes each record's index entries in `soup`, so the fold does not: a decoder does it on
    /// the thread that reads ahead. Leaves none for a soup with a hashed index (its digest needs
    /// the environment's key), or when a record has no entry id, which the fold reports.
    mutating func computeIndexEntries(in soup: SoupCatalogEntry) {
        guard let records = value["records"]?.array else { return }
        var entries: [IndexEntries] = []
        entries.reserveCapacity(records.count)
        for record in records {
            guard let entryId = record[SoupStore.entryIdField]?.number?.int64Value,
                let keys = IndexEntries.keys(for: record, entryId: entryId, inUnhashed: soup)
            else { return }
            entries.append(keys)
        }
        indexed = (soup, entries)
    }

    /// The records' index entries when they were computed for exactly `soup`: an alter the
    /// decoder could not follow changes the catalog entry, and the keys are computed again.
    func indexEntries(in soup: SoupCatalogEntry) -> [IndexEntries]? {
        guard let indexed, indexed.soup == soup else { return nil }
        return indexed.entries
    }
}
