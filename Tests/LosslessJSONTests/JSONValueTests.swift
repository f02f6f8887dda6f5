import Determinism
import LosslessJSON
import Testing

@Suite struct JSONValueTests {
    @Test func keepsNumberLiteralsExactly() throws {
        let value = try JSONValue(parsing: #"{"a":12.50,"b":-0.0,"c":12345678901234567890123,"d":1E+2}"#)
        #expect(value["a"]?.number?.text == "12.50")
        #expect(value["b"]?.number?.text == "-0.0")
        #expect(value["c"]?.number?.text == "12345678901234567890123")
        #expect(value.serializedString == #"{"a":12.50,"b":-0.0,"c":12345678901234567890123,"d":1E+2}"#)
    }

    @Test func serializesObjectKeysInByteOrder() throws {
        let value = try JSONValue(parsing: #" { "b" : [1, true, null], "a" : "x", "é": {}, "B": false } "#)
        #expect(value.serializedString == #"{"B":false,"a":"x","b":[1,true,null],"é":{}}"#)
    }

    /// Byte order of the UTF-8, for short (inline) and long strings alike.
    @Test func orderKeysByTheirUTF8BytesWhateverTheirLengthOrForm() throws {
        let keys = [
            "", "a", "ab", "a\u{0}", "B", "_soupEntryId", "__local__", "é", "\u{FF}", "😀", "z",
            "a key longer than fifteen bytes", "a key longer than fifteen bytez", String(repeating: "x", count: 300),
        ]
        let object = JSONValue.object(Dictionary(uniqueKeysWithValues: keys.map { ($0, JSONValue.null) }))
        let inByteOrder = keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let expected =
            "{" + inByteOrder.map { JSONValue.string($0).serializedString + ":null" }.joined(separator: ",") + "}"
        #expect(object.serializedString == expected)
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let value = try JSONValue(parsing: #""line\nbreak \"q\" \u00e9 \ud83d\ude00 \/""#)
        #expect(value.string == "line\nbreak \"q\" é 😀 /")
        #expect(try JSONValue(parsing: value.serialized()) == value)
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "tru", "\"\\x\"", "\"\u{01}\"", "[1] 2",
        "\"\\ud800\"", "{\"a\":1,}", "nul", "+1", ".5", "1e",
    ])
    func rejectsMalformedDocuments(text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
    }

    @Test(arguments: [
        ("plain é 😀", #""plain é 😀""#),
        (#""q" \ end"#, #""\"q\" \\ end""#),
        ("\n\r\t\u{01}\u{1F}", #""\n\r\t\u0001\u001f""#),
        ("", "\"\""),
        ("\"", #""\"""#),
    ])
    func escapesOnlyQuotesBackslashesAndControlCharacters(text: String, expected: String) throws {
        let value = JSONValue.string(text)
        #expect(value.serializedString == expected)
        #expect(try JSONValue(parsing: value.serialized()) == value)
    }

    @Test func rejectsInvalidUTF8InStrings() {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: [0x22, 0xFF, 0x22]) }
    }

    @Test func refusesNestingBeyondTheLimitWithoutCrashing() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: deep) }
        let allowed = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try JSONValue(parsing: allowed) }
    }

    @Test func namesTheOffsetOfTheProblem() {
        #expect(throws: JSONParseError(offset: 5, reason: "unexpected character")) {
            try JSONValue(parsing: #"{"a":x}"#)
        }
    }

    /// Strings are scanned eight bytes at a time: every character that needs an escape is
    /// found at every offset, beside ASCII, multi-byte UTF-8 and bytes just around 0x20.
    @Test func escapesEveryCharacterThatNeedsOneAtEveryOffset() throws {
        let specials: [Character] = ["\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{8}", "\u{C}"]
        let fillers: [Character] = ["a", " ", "!", "#", "[", "]", "\u{7F}", "é", "😀"]
        for length in 0..<24 {
            for filler in fillers {
                for special in specials {
                    for offset in 0..<max(length, 1) {
                        var characters = Array(repeating: filler, count: length)
                        if length > 0 { characters[offset] = special }
                        let text = String(characters)
                        let written = JSONValue.string(text).serialized()
                        #expect(written == Self.referenceSerialization(text), "\(length) \(filler) \(offset)")
                        #expect(try JSONValue(parsing: written) == .string(text))
                    }
                }
            }
        }
    }

    /// Strings are parsed eight bytes at a time too: a raw control character or a byte that is
    /// not UTF-8 is refused, and the string ends at its quote, at every offset and length.
    @Test func parsesStringsEndingOrFailingAtEveryOffset() throws {
        let fillers: [[UInt8]] = [Array("a".utf8), Array("é".utf8), Array("😀".utf8), [0x7F], [0x20]]
        for length in 0..<26 {
            for filler in fillers {
                let plain = Array(repeating: filler, count: length).flatMap { $0 }
                let text = String(decoding: plain, as: UTF8.self)
                // The string, then a second one: the first scan must stop at its own quote.
                let document = Array("[\"".utf8) + plain + Array("\",\"z\"]".utf8)
                #expect(try JSONValue(parsing: document) == .array([.string(text), "z"]), "\(length) \(filler)")
                for offset in 0..<plain.count {
                    for bad: UInt8 in [0x00, 0x0A, 0x1F, 0xFF, 0xC3] {
                        var damaged = plain
                        damaged[offset] = bad
                        guard String(validating: damaged, as: UTF8.self) == nil || bad < 0x20 else { continue }
                        let input = Array("[\"".utf8) + damaged + Array("\"]".utf8)
                        #expect(throws: JSONParseError.self, "\(length) \(filler) \(offset) \(bad)") {
                            try JSONValue(parsing: input)
                        }
                    }
                }
            }
        }
    }

    /// A trimmed parse keeps of each recorded element only the kept members, and gives the same
    /// spans as the whole parse, however the document is spelled.
    @Test func aTrimmedParseKeepsTheNamedMembersOfEachElement() throws {
        var generator = SplitMix64(seed: 41)
        for _ in 0..<200 {
            let records = Self.randomRecords(0..<5, using: &generator)
            let document: JSONValue = ["records": .array(records + ["not an object", 7]), "soup": "s"]
            let kept = (0..<7).filter { _ in Bool.random(using: &generator) }.map { "k\($0)" }
            for spelling in [document.serialized(), Array(Self.spelled(document, reversingKeys: true).utf8)] {
                let whole = try JSONValue.parse(spelling, recordingElementSpansOf: "records")
                let trimmed = try JSONValue.parse(spelling, recordingElementSpansOf: "records", keepingMembers: kept)
                #expect(trimmed.spans == whole.spans)
                let expected = (whole.value["records"]?.array ?? []).map { element -> JSONValue in
                    guard case .object(let members) = element else { return element }
                    return .object(members.filter { kept.contains($0.key) })
                }
                #expect(trimmed.value == ["records": .array(expected), "soup": "s"])
            }
        }
    }

    /// Element layouts from a trimmed parse are the whole parse's, serialized or not, however
    /// the skipped members are spelled: spaces, escapes, keys out of order at any depth.
    @Test func aTrimmedParseGivesTheWholeParsesElementLayouts() throws {
        var generator = SplitMix64(seed: 43)
        for _ in 0..<300 {
            let page = JSONValue.array(Self.randomRecords(1..<4, using: &generator))
            let kept = (0..<7).filter { _ in Bool.random(using: &generator) }.map { "k\($0)" }
            let spellings = [
                page.serialized(), Array(Self.spelled(page, reversingKeys: true).utf8),
                Array(Self.spelled(page, reversingKeys: false).utf8),
            ]
            for spelling in spellings {
                let whole = try JSONValue.parse(spelling, recordingElementLayouts: ())
                let trimmed = try JSONValue.parse(spelling, recordingElementLayouts: (), keepingMembers: kept)
                #expect(trimmed.layouts == whole.layouts, "\(String(decoding: spelling, as: UTF8.self))")
            }
        }
        // A name that is not ASCII, where it is skipped, counts as not serialized: a skipped
        // name could be canonically equal to another, which only the whole parse can see.
        for document in [#"[{"a":{"z":1,"é":2},"k":1}]"#, #"[{"k":1,"é":2}]"#] {
            let trimmed = try JSONValue.parse(Array(document.utf8), recordingElementLayouts: (), keepingMembers: ["k"])
            #expect(trimmed.layouts.map(\.isSerialized) == [false])
            #expect(
                try JSONValue.parse(Array(document.utf8), recordingElementLayouts: ()).layouts.map(\.isSerialized) == [
                    true
                ])
        }
    }

    /// A skipped member is checked as the whole parse checks it: what one refuses, both refuse.
    @Test func aTrimmedParseRefusesWhatTheWholeParseRefuses() throws {
        let values = [
            #""\u12""#, "\"a\u{1}b\"", "[1,]", #"{"a" 1}"#, "01", "tru", "-", #""\ud800""#, #"{"a":1,}"#,
            String(repeating: "[", count: 600) + String(repeating: "]", count: 600), #""abc"#, "[1 2]",
        ]
        for value in values {
            let document = Array(#"{"records":[{"kept":1,"skipped":"#.utf8) + Array(value.utf8) + Array("}]}".utf8)
            #expect(throws: JSONParseError.self, "\(value)") {
                try JSONValue.parse(document, recordingElementSpansOf: "records")
            }
            #expect(throws: JSONParseError.self, "\(value)") {
                try JSONValue.parse(document, recordingElementSpansOf: "records", keepingMembers: ["kept"])
            }
        }
        let invalidUTF8 = Array(#"{"records":[{"skipped":"a"#.utf8) + [0xC3, 0x28] + Array(#""}]}"#.utf8)
        #expect(throws: JSONParseError.self) {
            try JSONValue.parse(invalidUTF8, recordingElementSpansOf: "records", keepingMembers: [])
        }
        let escaped = Array(#"{"records":[{"k":1,"skipped":"a\"\u00e9\n[{"}]}"#.utf8)
        let trimmed = try JSONValue.parse(escaped, recordingElementSpansOf: "records", keepingMembers: ["k"])
        #expect(trimmed.value == ["records": [["k": 1]]])
    }

    /// A string's serialization, one byte at a time: what the word-at-a-time scan must write.
    static func referenceSerialization(_ text: String) -> [UInt8] {
        var output: [UInt8] = [UInt8(ascii: "\"")]
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += Array(#"\""#.utf8)
            case UInt8(ascii: "\\"): output += Array(#"\\"#.utf8)
            case 0x0A: output += Array(#"\n"#.utf8)
            case 0x0D: output += Array(#"\r"#.utf8)
            case 0x09: output += Array(#"\t"#.utf8)
            case 0..<0x20: output += Array("\\u00".utf8) + Array(String(byte, radix: 16).leftPadded(to: 2).utf8)
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
        return output
    }

    @Test func randomDocumentsRoundTrip() throws {
        var generator = SplitMix64(seed: 11)
        for _ in 0..<500 {
            let value = Self.randomValue(depth: 0, using: &generator)
            #expect(try JSONValue(parsing: value.serialized()) == value)
        }
    }

    /// `value` written with a space after every `,` and `:` and, when asked, object members in
    /// reverse byte order: the same value, not its serialization.
    static func spelled(_ value: JSONValue, reversingKeys: Bool) -> String {
        switch value {
        case .array(let elements):
            return "[" + elements.map { spelled($0, reversingKeys: reversingKeys) }.joined(separator: ", ") + "]"
        case .object(let members):
            var sorted = members.sorted { JSONValue.utf8Precedes($0.key, $1.key) }
            if reversingKeys { sorted.reverse() }
            let written = sorted.map {
                JSONValue.string($0.key).serializedString + ": " + spelled($0.value, reversingKeys: reversingKeys)
            }
            return "{" + written.joined(separator: ", ") + "}"
        default:
            return value.serializedString
        }
    }

    /// A layout that says its element's bytes are its serialization is never wrong, and says so
    /// for every serialized element whose strings need no escape.
    @Test func elementLayoutsSayWhenAnElementsBytesAreItsSerialization() throws {
        var generator = SplitMix64(seed: 12)
        for round in 0..<300 {
            let elements = (0..<Int.random(in: 1..<6, using: &generator)).map { _ in
                Self.randomValue(depth: 1, using: &generator)
            }
            let serialized = JSONValue.array(elements).serialized()
            for spelling in [
                serialized, Array(Self.spelled(.array(elements), reversingKeys: false).utf8),
                Array(Self.spelled(.array(elements), reversingKeys: true).utf8),
            ] {
                let parsed = try JSONValue.parse(spelling, recordingElementLayouts: ())
                #expect(parsed.value == .array(elements))
                #expect(parsed.layouts.count == elements.count)
                for (element, layout) in zip(elements, parsed.layouts) where layout.isSerialized {
                    #expect(Array(spelling[layout.span]) == element.serialized(), "round \(round)")
                }
            }
            let layouts = try JSONValue.parse(serialized, recordingElementLayouts: ()).layouts
            for (element, layout) in zip(elements, layouts) {
                let needsEscapes = element.serialized().contains(UInt8(ascii: "\\"))
                #expect(layout.isSerialized == !needsEscapes, "round \(round): \(element)")
            }
        }
    }

    @Test func elementLayoutsNameEachMemberOfAnObjectElementAndItsClosingBrace() throws {
        let bytes = Array(#"[{"a":1,"b":{"c":2}},[1],"x",{},{"a":1,"a":2}]"#.utf8)
        let layouts = try JSONValue.parse(bytes, recordingElementLayouts: ()).layouts
        #expect(layouts.map(\.span) == [1..<20, 21..<24, 25..<28, 29..<31, 32..<45])
        #expect(layouts.map(\.memberOffsets) == [[2, 8], [], [], [], [33, 39]])
        #expect(layouts.map(\.closeOffset) == [19, nil, nil, 30, 44])
        #expect(layouts.map(\.isSerialized) == [true, true, true, true, false])
        #expect(try JSONValue.parse(Array(#"{"a":[1]}"#.utf8), recordingElementLayouts: ()).layouts.isEmpty)
    }

    /// Objects with up to seven members `k0`…`k6` of random values, as many as `count` picks.
    static func randomRecords(_ count: Range<Int>, using generator: inout SplitMix64) -> [JSONValue] {
        (0..<Int.random(in: count, using: &generator)).map { _ in
            var members: [String: JSONValue] = [:]
            for index in 0..<Int.random(in: 0..<7, using: &generator) {
                members["k\(index)"] = randomValue(depth: 1, using: &generator)
            }
            return JSONValue.object(members)
        }
    }

    static func randomValue(depth: Int, using generator: inout SplitMix64) -> JSONValue {
        switch Int.random(in: 0..<(depth > 3 ? 4 : 6), using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .number(JSONNumber(Int64.random(in: -1_000_000...1_000_000, using: &generator)))
        case 3:
            let scalars = (0..<Int.random(in: 0..<8, using: &generator)).map { _ in
                Character(Unicode.Scalar(UInt8.random(in: 1...126, using: &generator)))
            }
            return .string(String(scalars) + "ü😀")
        case 4:
            return .array(
                (0..<Int.random(in: 0..<4, using: &generator)).map { _ in
                    randomValue(depth: depth + 1, using: &generator)
                })
        default:
            var members: [String: JSONValue] = [:]
            for index in 0..<Int.random(in: 0..<4, using: &generator) {
                members["k\(index)"] = randomValue(depth: depth + 1, using: &generator)
            }
            return .object(members)
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
