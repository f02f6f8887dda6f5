import LosslessJSON

/// The payload of a `soup.recompressed` entry: `{"dictionary": id, "from": entryId,
/// "soup": name, "through": entryId}` (decision 0033).
///
/// The store names the range, not a count: which records a batch holds is then a fact of the
/// journal, whatever was saved or deleted in the soup between the store's read and the fold.
struct SoupRecompressionEntry: Equatable, Sendable {
    /// The soup whose records are stored again.
    var soup: String
    /// The dictionary they are compressed with, the soup's current one when appended.
    var dictionaryId: UInt32
    /// The first `_soupEntryId` of the batch.
    var from: Int64
    /// The last `_soupEntryId` of the batch.
    var through: Int64

    private static let soupMember = "soup"
    private static let idMember = "dictionary"
    private static let fromMember = "from"
    private static let throughMember = "through"

    init(soup: String, dictionaryId: UInt32, from: Int64, through: Int64) {
        self.soup = soup
        self.dictionaryId = dictionaryId
        self.from = from
        self.through = through
    }

    /// Reads an entry's payload.
    /// - Throws: ``SoupError/Code/storage`` when a member is missing or malformed.
    init(payload: JSONValue, sequence: UInt64) throws {
        guard let soup = payload[Self.soupMember]?.string,
            let id = payload[Self.idMember]?.number?.int64Value.flatMap({ UInt32(exactly: $0) }), id > 0,
            let from = payload[Self.fromMember]?.number?.int64Value,
            let through = payload[Self.throughMember]?.number?.int64Value, from <= through
        else {
            throw SoupError(.storage, "entry \(sequence) of kind soup.recompressed is malformed")
        }
        self.init(soup: soup, dictionaryId: id, from: from, through: through)
    }

    /// The entry's payload.
    var payload: JSONValue {
        [
            Self.soupMember: .string(soup), Self.idMember: .number(JSONNumber(Int64(dictionaryId))),
            Self.fromMember: .number(JSONNumber(from)), Self.throughMember: .number(JSONNumber(through)),
        ]
    }
}
