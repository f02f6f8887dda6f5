import LosslessJSON
import Testing

@testable import Soups

/// A batch of record values compressed in two halves at once (decision 0034) equals the same
/// values compressed one by one, in order.
@Suite struct RecordValuesInHalvesTests {
    /// `count` org-shaped records, each serialized, differing in every value that varies.
    static func jsons(_ count: Int, from first: Int = 0) -> [[UInt8]] {
        (first..<first + count).map { number in
            JSONValue.object([
                "Id": .string("001\(100_000 + number)AAA"), "Name": .string("Account \(number)"),
                "Industry": .string(["Energy", "Retail", "Finance", "Media"][number % 4]),
                "NumberOfEmployees": .number(JSONNumber(Int64(number * 7))),
                "_soupEntryId": .number(JSONNumber(Int64(number + 1))),
                "attributes": ["type": "Account", "url": .string("/services/data/v66.0/sobjects/Account/\(number)")],
            ]).serialized()
        }
    }

    static func dictionary() throws -> RecordDictionary {
        let bytes = try #require(RecordDictionaryTrainer.dictionary(from: jsons(1_000, from: 50_000)))
        return try #require(RecordDictionary(id: 3, bytes: bytes))
    }

    @Test(arguments: [0, 1, 2, 255, 256, 257, 2_000])
    func valuesCompressedInHalvesEqualValuesCompressedOneByOne(count: Int) throws {
        let dictionary = try Self.dictionary()
        let jsons = Self.jsons(count)
        let oneByOne = jsons.map { StoredRecordValue.stored($0, with: dictionary) }
        #expect(StoredRecordValue.stored(jsons, with: dictionary, inHalves: true) == oneByOne)
        #expect(StoredRecordValue.stored(jsons, with: dictionary, inHalves: false) == oneByOne)
        if count > 0 { #expect(oneByOne.allSatisfy { $0.first == StoredRecordValue.compressedTag }) }
        for (json, value) in zip(jsons, oneByOne) {
            #expect(try StoredRecordValue.json(of: value) { $0 == dictionary.id ? dictionary : nil } == json)
        }
    }
}
