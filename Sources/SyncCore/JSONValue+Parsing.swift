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

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if consume(UInt8(ascii: "}")) {
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let key = try parseString()
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw error("expected ':' after a member name") }
            skipWhitespace()
            let valueStart = index
            members[key] = try parseValue()
            if depth == 1, let recordedMember, key == recordedMember { recordedSpan = valueStart..<index }
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            guard consume(UInt8(ascii: "}")) else { throw error("expected ',' or '}' in an object") }
            depth -= 1
            return .object(members)
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        var elements: [JSONValue] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) {
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            guard consume(UInt8(ascii: "]")) else { throw error("expected ',' or ']' in an array") }
            depth -= 1
            return .array(elements)
        }
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
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                guard let text = String(validating: bytes[start..<index], as: UTF8.self) else {
                    throw error("a string is not valid UTF-8")
                }
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            index += 1
        }
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
        return JSONNumber(validatedText: String(decoding: bytes[start..<index], as: UTF8.self))
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
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func error(_ reason: String) -> JSONParseError {
        JSONParseError(offset: index, reason: reason)
    }
}
