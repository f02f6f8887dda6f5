import LosslessJSON
import Soups

/// A fetched page's records as the page fold reads them, and where each stands in the payload.
struct FoldedPage: Sendable {
    /// The records; those with a splice may hold only the members the fold reads.
    var records: [JSONValue]
    /// Where each record's added fields go, for those whose bytes are their serialization.
    var splices: [RecordSplice?]
    /// Each record's bytes in the payload, when some records hold only some members.
    var trimmedSpans: [Range<Int>]? = nil

    /// Whether the record at `position` may hold only some of its members: a spliced record
    /// of a page parsed for what the fold reads. Every other record is whole.
    func isTrimmed(_ position: Int) -> Bool {
        trimmedSpans != nil && splices[position] != nil
    }

    /// The record at `position` with every member, parsed from its bytes in `payload`.
    func wholeRecord(_ position: Int, in payload: [UInt8]) throws -> JSONValue {
        guard let trimmedSpans else { return records[position] }
        return try JSONValue(parsing: payload[trimmedSpans[position]])
    }
}

/// A fetched page parsed ahead of its fold (``PageDecoder``), with the members it kept of each
/// spliced record (`nil`: every member), so the fold uses it only while it reads those.
struct DecodedPage: Sendable {
    var page: FoldedPage
    var keptMembers: [String]?
}
