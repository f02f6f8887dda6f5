import Foundation
import LosslessJSON

/// The payload of a `soup.dictionary` entry: `{"bytes": base64, "dictionary": id, "soup": name}`
/// (decision 0030).
struct SoupDictionaryEntry: Equatable, Sendable {
    /// The soup whose records the dictionary compresses.
    var soup: String
    /// The dictionary's id in its soup, 1 for the first; values name it in their header.
    var id: UInt32
    /// The zstd dictionary, as `ZDICT_trainFromBuffer` made it.
    var bytes: [UInt8]

    private static let soupMember = "soup"
    private static let idMember = "dictionary"
    private static let bytesMember = "bytes"

    init(soup: String, id: UInt32, bytes: [UInt8]) {
        self.soup = soup
        self.id = id
        self.bytes = bytes
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
        self.init(soup: soup, id: id, bytes: Array(bytes))
    }

    /// The entry's payload.
    var payload: JSONValue {
        [
            Self.soupMember: .string(soup), Self.idMember: .number(JSONNumber(Int64(id))),
            Self.bytesMember: .string(Data(bytes).base64EncodedString()),
        ]
    }
}
