import Determinism
import LosslessJSON
import Testing

@testable import Soups

@Suite struct SerializedPageTests {
    /// Keys on both sides of `_` (uppercase and digits below it, lowercase and non-ASCII above).
    private static let keyPool = ["Id", "Name", "A", "9", "", "attributes", "name", "é", "😀", "Z", "a_b", "z"]

    private static func randomValue(depth: Int, using generator: inout SplitMix64) -> JSONValue {
        switch Int.random(in: 0..<(depth > 1 ? 5 : 7), using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .number(JSONNumber(Int64.random(in: -1000...1000, using: &generator)))
        case 3:
            return .string(
                ["", "x", "quote \" and \\ slash", "line\nbreak", "é😀"][Int.random(in: 0..<5, using: &generator)])
        case 4: return .string(String(repeating: "lorem ", count: Int.random(in: 0..<50, using: &generator)))
        case 5:
            return .array(
                (0..<Int.random(in: 0..<3, using: &generator)).map { _ in
                    randomValue(depth: depth + 1, using: &generator)
                })
        default: return randomObject(depth: depth + 1, underscoreChance: 0.3, using: &generator)
        }
    }

    private static func randomObject(depth: Int, underscoreChance: Double, using generator: inout SplitMix64)
        -> JSONValue
    {
        var members: [String: JSONValue] = [:]
        for _ in 0..<Int.random(in: 0..<6, using: &generator) {
            members[keyPool[Int.random(in: 0..<keyPool.count, using: &generator)]] = randomValue(
                depth: depth, using: &generator)
        }
        if Double.random(in: 0..<1, using: &generator) < underscoreChance {
            members["_private"] = .bool(true)
        }
        return .object(members)
    }

    /// Records that share their keys reuse one key order; a record with as many keys but
    /// another one, or with fewer, is sorted afresh, and the bytes stay the array's.
    @Test func recordsWithTheSameKeysAndThenOthersSerializeAsTheArray() {
        let records: [JSONValue] = [
            ["Name": "a", "Id": "1", "z": 1], ["z": 2, "Id": "2", "Name": "b"], ["Name": "c", "Id": "3", "y": 3],
            ["Id": "4"], ["Id": "5", "Name": "e", "z": 5], 7,
        ]
        #expect(SerializedPage(records: records).bytes == JSONValue.array(records).serialized())
    }

    /// Records alternating between key sets, some with as many keys as another but not the same
    /// ones, and with nested objects whose key sets alternate too, serialize as the array: an
    /// order kept for one set is never used for another.
    @Test func recordsAlternatingBetweenKeySetsSerializeAsTheArray() {
        let sets: [[String]] = [
            ["Id", "Name", "z"], ["Id", "Name", "y"], ["Name", "y", "z"], ["Id", "Name"],
            ["Id", "Name", "z", "q\"uote"], ["Id", "Name", "y", "q\"uote"], ["é", "Id"], ["", "Id", "_x"],
        ]
        var records: [JSONValue] = []
        for index in 0..<400 {
            var members: [String: JSONValue] = [:]
            for key in sets[(index * 7 + index / 3) % sets.count] { members[key] = .string("\(key)-\(index)") }
            let attributes: JSONValue =
                index.isMultiple(of: 2)
                ? ["type": "Account", "url": .string("/a/\(index)")] : ["type": "Contact", "urn": 1]
            members["attributes"] = attributes
            let third: JSONValue = index.isMultiple(of: 3) ? ["a": 1, "c": 2] : ["a": 3]
            members["list"] = .array([attributes, ["b": 1, "a": 2], third])
            records.append(.object(members))
        }
        let page = SerializedPage(records: records)
        #expect(page.bytes == JSONValue.array(records).serialized())
        for (record, splice) in zip(records, page.splices) {
            guard case .object(let members) = record else { continue }
            #expect((splice == nil) == (members["_x"] != nil))
        }
    }

    /// More key sets than a page keeps orders for, in turn, still serialize as the array.
    @Test func moreKeySetsThanKeptOrdersSerializeAsTheArray() {
        let setCount = ObjectKeyOrders.orderCountMax * 2 + 1
        let records: [JSONValue] = (0..<(setCount * 5)).map { index in
            var members: [String: JSONValue] = ["Id": .number(JSONNumber(Int64(index)))]
            for key in 0..<3 { members["k\((index % setCount) + key)"] = .bool(true) }
            return .object(members)
        }
        #expect(SerializedPage(records: records).bytes == JSONValue.array(records).serialized())
    }

    /// A large page serialized in two halves at once has the bytes and the splices of the page
    /// serialized on one thread, so the fold splices the same records at the same places.
    @Test func aPageSerializedInTwoHalvesIsThePageSerializedOnOneThread() async throws {
        var generator = SplitMix64(seed: 11)
        for count in [0, 1, SerializedPage.splitRecordCountMin - 1, SerializedPage.splitRecordCountMin, 999] {
            var records = (0..<count).map { _ in
                Self.randomObject(depth: 0, underscoreChance: 0.15, using: &generator)
            }
            if count > 2 { records[count / 2] = Self.randomValue(depth: 2, using: &generator) }
            let halves = await SerializedPage.serializing(records: records)
            let whole = SerializedPage(records: records)
            #expect(halves.bytes == whole.bytes)
            #expect(halves.splices == whole.splices)
            #expect(halves.bytes == JSONValue.array(records).serialized())
            let layouts = try JSONValue.parse(halves.bytes, recordingElementLayouts: ()).layouts
            for (layout, splice) in zip(layouts, halves.splices) {
                guard let found = RecordSplice(layout, in: halves.bytes) else { continue }
                #expect(found == splice)
            }
        }
    }

    /// The page's bytes are the array's serialization, and splicing the added fields into a
    /// record gives exactly the serialization of the record with those fields.
    @Test func splicingAddedFieldsGivesTheSerializationOfTheMergedRecord() throws {
        var generator = SplitMix64(seed: 5)
        let added: [String: JSONValue] = [
            "__local__": false, "_soupEntryId": 7, "__sync_id__": 3, "_soupLastModifiedDate": 1,
        ]
        let addedMembers = JSONValue.object(added).serialized().dropFirst().dropLast()
        var spliced = 0
        var foundInPayload = 0
        for _ in 0..<300 {
            var records = (0..<Int.random(in: 0..<6, using: &generator)).map { _ in
                Self.randomObject(depth: 0, underscoreChance: 0.15, using: &generator)
            }
            if Bool.random(using: &generator) { records.append(Self.randomValue(depth: 2, using: &generator)) }
            let page = SerializedPage(records: records)
            #expect(page.bytes == JSONValue.array(records).serialized())
            #expect(page.splices.count == records.count)
            // A fold without the engine's hand-over finds the same splices in the payload, or
            // none where it cannot tell the bytes are the serialization (an escape).
            let layouts = try JSONValue.parse(page.bytes, recordingElementLayouts: ()).layouts
            for (layout, splice) in zip(layouts, page.splices) {
                guard let found = RecordSplice(layout, in: page.bytes) else { continue }
                #expect(found == splice)
                foundInPayload += 1
            }
            for (record, splice) in zip(records, page.splices) {
                guard case .object(let members) = record, !members.keys.contains(where: { $0.hasPrefix("_") }) else {
                    #expect(splice == nil)
                    continue
                }
                let splice = try #require(splice)
                let merged = JSONValue.object(members.merging(added) { $1 })
                #expect(splice.bytes(in: page.bytes, adding: addedMembers) == merged.serialized())
                spliced += 1
            }
        }
        #expect(spliced > 300)
        #expect(foundInPayload > 100)
    }

    @Test func anEmptyObjectAndAnEmptyPageSerializeToo() {
        let page = SerializedPage(records: [[:]])
        #expect(page.bytes == Array("[{}]".utf8))
        let splice = page.splices[0]
        #expect(splice?.bytes(in: page.bytes, adding: Array(#""_a":1"#.utf8)[...]) == Array(#"{"_a":1}"#.utf8))
        #expect(SerializedPage(records: []).bytes == Array("[]".utf8))
    }
}
