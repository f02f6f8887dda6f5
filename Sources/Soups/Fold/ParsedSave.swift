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

    /// Parses `entry`'s payload, keeping of each record only `keepingMembers` (`nil`: all).
    /// - Throws: `JSONParseError` for a malformed payload.
    init(_ entry: JournalEntry, keepingMembers kept: [String]?) throws {
        let parsed = try JSONValue.parse(entry.payload, recordingElementSpansOf: "records", keepingMembers: kept)
        value = parsed.value
        recordBytes = parsed.spans.map { Array(entry.payload[$0]) }
        keptMembers = kept
    }
}
