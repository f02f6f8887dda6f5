extension JSONValue {
    /// The deepest nesting of arrays and objects the parser accepts.
    ///
    /// A limit keeps hostile input (`[[[[…`) from exhausting the stack: such input gets an
    /// error instead of crashing the process.
    public static let nestingDepthMax = 512

    /// Parses one JSON document (RFC 8259), with optional surrounding white space.
    ///
    /// - Parameter bytes: UTF-8 text.
    /// - Throws: ``JSONParseError`` naming the byte offset of the first problem.
    /// - Complexity: O(n) in the length of `bytes`.
    public init(parsing bytes: some Collection<UInt8>) throws(JSONParseError) {
        var parser = JSONParser(bytes: Array(bytes))
        self = try parser.parseDocument()
    }

    /// Parses a document and also reports where the value of one top-level object member lies.
    ///
    /// The journal's import reads payloads back byte for byte from that span, since parsing
    /// and re-serializing could change their spelling.
    /// - Returns: the value, and the byte range of `member`'s value when the document is an
    ///   object that has it.
    package static func parse(
        _ bytes: [UInt8], recordingSpanOfMember member: String
    ) throws(JSONParseError) -> (value: JSONValue, span: Range<Int>?) {
        var parser = JSONParser(bytes: bytes)
        parser.recordedMember = member
        let value = try parser.parseDocument()
        return (value, parser.recordedSpan)
    }

    /// Parses a document and also reports where each element of one top-level array member lies.
    ///
    /// A soup's save entry holds its records as `{"records": [...], ...}`; the fold stores each
    /// record's bytes from its span instead of serializing the parsed record again.
    /// - Parameter keptMembers: when given, each object element of `member`'s array keeps only
    ///   the members it names; the others are checked as the whole parse checks them, and
    ///   skipped without building their values. A fold that reads a few fields of each record
    ///   (its id, its indexed paths) and stores its bytes from its span would otherwise spend
    ///   most of the parse building, then freeing, members it never reads.
    /// - Returns: the value, and the byte ranges of the elements of `member`'s array, in order
    ///   (empty when the document has no such array).
    package static func parse(
        _ bytes: [UInt8], recordingElementSpansOf member: String, keepingMembers keptMembers: [String]? = nil
    ) throws(JSONParseError) -> (value: JSONValue, spans: [Range<Int>]) {
        var parser = JSONParser(bytes: bytes)
        parser.recordedArrayMember = member
        parser.keptElementMembers = keptMembers
        let value = try parser.parseDocument()
        return (value, parser.recordedElementSpans)
    }

    /// Parses a document that is an array, and also reports the layout of each element in
    /// `bytes` (see ``JSONElementLayout``).
    ///
    /// A fetched page's entry holds its records as a JSON array; a fold splices the fields it
    /// adds into a record's bytes when they are its serialization, instead of serializing it.
    /// - Parameter keptMembers: as for ``parse(_:recordingElementSpansOf:keepingMembers:)``. The
    ///   layouts are the whole parse's, except that an element with a name that is not ASCII in
    ///   a skipped part counts as not serialized.
    /// - Returns: the value, and one layout per element in order (empty when the document is
    ///   not an array).
    package static func parse(
        _ bytes: [UInt8], recordingElementLayouts: Void, keepingMembers keptMembers: [String]? = nil
    ) throws(JSONParseError) -> (value: JSONValue, layouts: [JSONElementLayout]) {
        var parser = JSONParser(bytes: bytes)
        parser.recordsTopLevelLayouts = true
        parser.keptElementMembers = keptMembers
        let value = try parser.parseDocument()
        return (value, parser.recordedLayouts)
    }

    /// Parses one JSON document from a string.
    public init(parsing text: String) throws(JSONParseError) {
        try self.init(parsing: Array(text.utf8))
    }
}

/// A recursive-descent parser over a byte array; positions are byte offsets for error messages.
struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0
    /// A top-level member whose value's byte range to record in `recordedSpan`.
    var recordedMember: String?
    var recordedSpan: Range<Int>?
    /// A top-level member whose array elements' byte ranges to record in `recordedElementSpans`.
    var recordedArrayMember: String?
    var recordedElementSpans: [Range<Int>] = []
    /// Set while the recorded array member's value is being parsed.
    private var recordsElements = false
    /// The members to keep of each object element of the recorded array; `nil` keeps all.
    var keptElementMembers: [String]?
    /// Whether to record the layout of each element of a top-level array in `recordedLayouts`.
    var recordsTopLevelLayouts = false
    var recordedLayouts: [JSONElementLayout] = []
    /// While an element's layout is recorded: whether its bytes are still its serialization,
    /// the depth of its own object, and that object's member offsets and closing brace.
    private var checksSerialization = false
    private var isSerialized = true
    private var layoutObjectDepth = 0
    private var layoutMemberOffsets: [Int] = []
    private var layoutCloseOffset: Int?

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw error("unexpected data after the document") }
        return value
    }

    /// Parses one value at `index` and returns with `index` just past it.
    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseKeyword("true", .bool(true))
        case UInt8(ascii: "f"): return try parseKeyword("false", .bool(false))
        case UInt8(ascii: "n"): return try parseKeyword("null", .null)
        default: return .number(try parseNumber())
        }
    }

    /// Parses an object; with `keptMembers`, the others are skipped (``skipValue()``).
    private mutating func parseObject(keeping keptMembers: [String]? = nil) throws(JSONParseError) -> JSONValue {
        try enterContainer()
        // Members are gathered first and the dictionary made once at its final size: growing a
        // dictionary member by member rehashes every key at each doubling.
        var members: [(String, JSONValue)] = []
        var previousKey: String?
        let isLayoutObject = checksSerialization && depth == layoutObjectDepth
        skipWhitespace()
        if isLayoutObject { layoutCloseOffset = index }
        if consume(UInt8(ascii: "}")) {
            depth -= 1
            return .object([:])
        }
        // Records have a dozen members or so; growing from one by doubling would reallocate four times.
        members.reserveCapacity(16)
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a member name") }
            if isLayoutObject { layoutMemberOffsets.append(index) }
            let key = try parseString()
            if checksSerialization {
                if let previousKey, !JSONValue.utf8Precedes(previousKey, key) { isSerialized = false }
                // A skipped name is in no dictionary that would show it canonically equal to
                // another: only ASCII names, whose bytes decide, count as serialized here.
                if keptMembers != nil, key.utf8.contains(where: { $0 >= 0x80 }) { isSerialized = false }
                previousKey = key
            }
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw error("expected ':' after a member name") }
            skipWhitespace()
            let valueStart = index
            if let keptMembers, !keptMembers.contains(key) {
                try skipValue()
            } else {
                recordsElements = depth == 1 && recordedArrayMember != nil && key == recordedArrayMember
                members.append((key, try parseValue()))
                recordsElements = false
            }
            if depth == 1, let recordedMember, key == recordedMember { recordedSpan = valueStart..<index }
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            if isLayoutObject { layoutCloseOffset = index }
            guard consume(UInt8(ascii: "}")) else { throw error("expected ',' or '}' in an object") }
            depth -= 1
            // A repeated name keeps its last value, as it always has.
            var object = [String: JSONValue](minimumCapacity: members.count)
            for (name, value) in members { object[name] = value }
            // Names with different bytes can still be one `String` (canonically equivalent
            // Unicode): the serialization then has fewer members than the input.
            if checksSerialization, object.count != members.count { isSerialized = false }
            return .object(object)
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        let recording = recordsElements
        recordsElements = false
        let recordsLayouts = recordsTopLevelLayouts && depth == 0
        try enterContainer()
        var elements: [JSONValue] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) {
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            let elementStart = index
            if recordsLayouts { beginLayout() }
            if recording || recordsLayouts, let keptElementMembers, index < bytes.count,
                bytes[index] == UInt8(ascii: "{")
            {
                elements.append(try parseObject(keeping: keptElementMembers))
            } else {
                elements.append(try parseValue())
            }
            if recording { recordedElementSpans.append(elementStart..<index) }
            if recordsLayouts { endLayout(from: elementStart) }
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            guard consume(UInt8(ascii: "]")) else { throw error("expected ',' or ']' in an array") }
            depth -= 1
            return .array(elements)
        }
    }

    /// Starts checking the element that begins at `index` (see ``JSONElementLayout``).
    private mutating func beginLayout() {
        checksSerialization = true
        isSerialized = true
        layoutObjectDepth = depth + 1
        layoutMemberOffsets = []
        layoutCloseOffset = nil
    }

    /// Records the layout of the element parsed from `start` to `index`.
    private mutating func endLayout(from start: Int) {
        checksSerialization = false
        recordedLayouts.append(
            JSONElementLayout(
                span: start..<index, isSerialized: isSerialized, memberOffsets: layoutMemberOffsets,
                closeOffset: layoutCloseOffset))
    }

    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        guard depth <= JSONValue.nestingDepthMax else {
            throw error("nesting deeper than \(JSONValue.nestingDepthMax) levels")
        }
        index += 1
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // the opening quote
        // Fast path: most strings have no escapes, so they are one slice of the input.
        let start = index
        var nonASCII: UInt8 = 0
        skipPlainWords(nonASCII: &nonASCII)
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = try makeString(start..<index, isASCII: nonASCII & 0x80 == 0)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            nonASCII |= byte
            index += 1
        }
        // An escape: the serialization may spell the string otherwise.
        if checksSerialization { isSerialized = false }
        var scalars = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: scalars, as: UTF8.self) else {
                    throw error("a string is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                try parseEscape(into: &scalars)
            case 0..<0x20:
                throw error("unescaped control character in a string")
            default:
                scalars.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    /// Moves `index` past one value, checking it as ``parseValue()`` would, without building it.
    private mutating func skipValue() throws(JSONParseError) {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            try enterContainer()
            skipWhitespace()
            if consume(UInt8(ascii: "}")) {
                depth -= 1
                return
            }
            var previousKey: Range<Int>?
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw error("expected a member name")
                }
                let keyStart = index
                try skipString()
                if checksSerialization {
                    let key = (keyStart + 1)..<(index - 1)
                    if let previousKey, !rawKey(previousKey, precedes: key) { isSerialized = false }
                    previousKey = key
                }
                skipWhitespace()
                guard consume(UInt8(ascii: ":")) else { throw error("expected ':' after a member name") }
                skipWhitespace()
                try skipValue()
                skipWhitespace()
                if consume(UInt8(ascii: ",")) { continue }
                guard consume(UInt8(ascii: "}")) else { throw error("expected ',' or '}' in an object") }
                depth -= 1
                return
            }
        case UInt8(ascii: "["):
            try enterContainer()
            skipWhitespace()
            if consume(UInt8(ascii: "]")) {
                depth -= 1
                return
            }
            while true {
                skipWhitespace()
                try skipValue()
                skipWhitespace()
                if consume(UInt8(ascii: ",")) { continue }
                guard consume(UInt8(ascii: "]")) else { throw error("expected ',' or ']' in an array") }
                depth -= 1
                return
            }
        case UInt8(ascii: "\""):
            try skipString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            _ = try parseValue()
        default:
            let start = index
            guard JSONNumber.scanLiteral(bytes, &index) else {
                index = start
                throw error("unexpected character")
            }
        }
    }

    /// Whether the unescaped ASCII name at `left` comes strictly before the one at `right` in
    /// byte order; any other byte makes it `false`, which only costs a splice (see
    /// ``parseObject(keeping:)``'s note on skipped names).
    private func rawKey(_ left: Range<Int>, precedes right: Range<Int>) -> Bool {
        for offset in 0..<min(left.count, right.count) {
            let (l, r) = (bytes[left.lowerBound + offset], bytes[right.lowerBound + offset])
            if l >= 0x80 || r >= 0x80 { return false }
            if l != r { return l < r }
        }
        guard left.count < right.count else { return false }
        return !bytes[right.lowerBound + left.count..<right.upperBound].contains { $0 >= 0x80 }
    }

    /// Moves `index` past one string, checking it as ``parseString()`` would: a plain ASCII
    /// string, the common case, is never made into a `String`.
    private mutating func skipString() throws(JSONParseError) {
        let quote = index
        index += 1
        let start = index
        var nonASCII: UInt8 = 0
        skipPlainWords(nonASCII: &nonASCII)
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                if nonASCII & 0x80 != 0 { _ = try makeString(start..<index, isASCII: false) }
                index += 1
                return
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            nonASCII |= byte
            index += 1
        }
        // An escape, a control character or no end: the full parse decides.
        index = quote
        _ = try parseString()
    }

    /// Moves `index` past whole eight-byte words of a string that hold no quote, backslash or
    /// control character, noting in `nonASCII` whether any of their bytes is above 0x7F.
    ///
    /// Record strings are mostly long runs of such bytes: scanning them a byte at a time was
    /// the largest part of parsing a 1 KB record. The byte loop after it finds the end.
    private mutating func skipPlainWords(nonASCII: inout UInt8) {
        var position = index
        var highBits: UInt64 = 0
        bytes.withUnsafeBytes { raw in
            while position + 8 <= raw.count {
                let word = raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)
                if JSONValue.mayNeedEscape(word) { break }
                highBits |= word
                position += 8
            }
        }
        index = position
        if highBits & 0x8080_8080_8080_8080 != 0 { nonASCII = 0x80 }
    }

    /// The string of `range`, which holds no quote, escape or control character.
    ///
    /// Strings are made from the contiguous bytes directly: validating an `ArraySlice` goes
    /// through the standard library's generic path, which cost a fifth of a soup fold. ASCII
    /// needs no validation at all.
    private func makeString(_ range: Range<Int>, isASCII: Bool) throws(JSONParseError) -> String {
        let text = bytes.withUnsafeBufferPointer { buffer -> String? in
            let slice = UnsafeBufferPointer(rebasing: buffer[range])
            return isASCII ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
        }
        guard let text else { throw error("a string is not valid UTF-8") }
        return text
    }

    private mutating func parseEscape(into output: inout [UInt8]) throws(JSONParseError) {
        guard index < bytes.count else { throw error("unterminated escape") }
        let escaped = bytes[index]
        index += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escaped)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw error("unpaired surrogate in a \\u escape") }
                index += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in a \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error("unpaired surrogate in a \\u escape")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
            output.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            throw error("invalid escape character")
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in a \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = index
        guard JSONNumber.scanLiteral(bytes, &index) else {
            index = start
            throw error("unexpected character")
        }
        return JSONNumber(validatedText: try makeString(start..<index, isASCII: true))
    }

    private mutating func parseKeyword(_ keyword: StaticString, _ value: JSONValue) throws(JSONParseError) -> JSONValue
    {
        let count = keyword.utf8CodeUnitCount
        let matches = keyword.withUTF8Buffer { expected in
            index + count <= bytes.count && bytes[index..<index + count].elementsEqual(expected)
        }
        guard matches else { throw error("unexpected character") }
        index += count
        return value
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D:
                index += 1
                // Only called between an element's tokens while its serialization is checked.
                if checksSerialization { isSerialized = false }
            default: return
            }
        }
    }

    private func error(_ reason: String) -> JSONParseError {
        JSONParseError(offset: index, reason: reason)
    }
}
