import Foundation
import LosslessJSON

/// The payload of a `soup.dictionary` entry: `{"bytes": base64, "dictionary": id,
/// "rewritesRecords": false, "soup": name}` (decisions 0030 and 0033).
struct SoupDictionaryEntry: Equatable, Sendable {
    /// The soup whose records the dictionary compresses.
    var soup: String
    /// The dictionary's id in its soup, 1 for the first; values name it in their header.
    var id: UInt32
    /// The zstd dictionary, as `ZDICT_trainFromBuffer` made it.
    var bytes: [UInt8]
    /// Whether the fold stores the soup's records compressed at once, in its own commit. The
    /// entries of the build that introduced dictionaries did (the member is absent from them);
    /// the store now writes `false` and journals the records in batches of
    /// `soup.recompressed` entries, so no commit holds a whole soup's rewrite (decision 0033).
    var rewritesRecords: Bool

    private static let soupMember = "soup"
    private static let idMember = "dictionary"
    private static let bytesMember = "bytes"
    private static let rewritesRecordsMember = "rewritesRecords"

    init(soup: String, id: UInt32, bytes: [UInt8], rewritesRecords: Bool = false) {
        self.soup = soup
        self.id = id
        self.bytes = bytes
        self.rewritesRecords = rewritesRecords
    }

    /// Reads an entry's payload.
    /// - Throws: ``SoupError/Code/storage`` when a member is missing or malformed.
    init(payload: JSONValue, sequence: UInt64) throws {
        guard let soup = payload[Self.soupMember]?.string,
            let id = payload[Self.idMember]?.number?.int64Value.flatMap({ UInt32(exactly: $0) }), id > 0,
            let encoded = payload[Self.bytesMember]?.string, let bytes = Data(base64Encoded: encoded), !bytes.isEmpty
        else {
            throw SoupError(.storage, "entry \(sequence) of kind soup.dictionary is malformed")
        }
        var rewritesRecords = true
        if let member = payload[Self.rewritesRecordsMember] {
            guard case .bool(let value) = member else {
                throw SoupError(.storage, "entry \(sequence) of kind soup.dictionary is malformed")
            }
            rewritesRecords = value
        }
        self.init(soup: soup, id: id, bytes: Array(bytes), rewritesRecords: rewritesRecords)
    }

    /// The entry's payload.
    var payload: JSONValue {
        var members: [String: JSONValue] = [
            Self.soupMember: .string(soup), Self.idMember: .number(JSONNumber(Int64(id))),
            Self.bytesMember: .string(Data(bytes).base64EncodedString()),
        ]
        // Absent means `true`, as in the entries written before the member existed.
        if !rewritesRecords { members[Self.rewritesRecordsMember] = .bool(false) }
        return .object(members)
    }
}
