extension JSONValue {
    /// The value as compact JSON with object keys in UTF-8 byte order.
    ///
    /// The output is a pure function of the value, so it is safe to store, hash and compare
    /// byte for byte. Only `"`, `\` and control characters are escaped.
    ///
    /// - Complexity: O(n log n) in the size of the value (key sorting).
    public func serialized() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(64)
        write(into: &output)
        return output
    }

    /// ``serialized()`` as a string.
    public var serializedString: String {
        String(decoding: serialized(), as: UTF8.self)
    }

    /// Appends the compact serialization of this value to `output`.
    public func write(into output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let value): output.append(contentsOf: value.text.utf8)
        case .string(let value): Self.writeString(value, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                element.write(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            // Sorting the pairs, not the keys, saves a hash lookup per member.
            let sorted = members.sorted { Self.utf8Precedes($0.key, $1.key) }
            for (position, member) in sorted.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                member.value.write(into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Whether object key `left` comes before `right` in a serialization: byte order of their
    /// UTF-8, which is not `String`'s `<` (that compares canonical Unicode forms).
    ///
    /// Compared in place: the generic `lexicographicallyPrecedes` over `String.UTF8View`
    /// iterates by index, and sorting keys was a quarter of serializing a record.
    package static func utf8Precedes(_ left: String, _ right: String) -> Bool {
        let inPlace = left.utf8.withContiguousStorageIfAvailable { leftBytes in
            right.utf8.withContiguousStorageIfAvailable { rightBytes in
                for index in 0..<min(leftBytes.count, rightBytes.count) where leftBytes[index] != rightBytes[index] {
                    return leftBytes[index] < rightBytes[index]
                }
                return leftBytes.count < rightBytes.count
            }
        }
        return (inPlace ?? nil) ?? left.utf8.lexicographicallyPrecedes(right.utf8)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Writes `value` quoted and escaped. Runs of bytes that need no escape are copied in one
    /// append: record JSON is mostly such runs, and byte-by-byte appends dominated the cost of
    /// serializing a page of records.
    static func writeString(_ value: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            var runStart = 0
            var index = 0
            while index < bytes.count {
                // Eight bytes at a time while none of them needs an escape: the byte-by-byte
                // test was a tenth of a soup insert, most of it in long text fields.
                if index + 8 <= bytes.count,
                    !mayNeedEscape(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                {
                    index += 8
                    continue
                }
                let byte = bytes[index]
                if byte < 0x20 || byte == 0x22 || byte == 0x5C {
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                    appendEscaped(byte, into: &output)
                    runStart = index + 1
                }
                index += 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes of `word` is a control character, `"` or `\`: a byte a
    /// string's serialization escapes, and one that ends a parsed string's plain run.
    ///
    /// The tests for a byte below 0x20 and for a zero byte (after XOR with the quote or the
    /// backslash) are the classic word-at-a-time ones: a borrow can only flag a byte above one
    /// that really matches, so the answer for the word is exact.
    static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word & highBits
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let quotes = (quote &- ones) & ~quote & highBits
        let backslashes = (backslash &- ones) & ~backslash & highBits
        return control | quotes | backslashes != 0
    }

    private static func appendEscaped(_ byte: UInt8, into output: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
        case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
        case 0x0A: output.append(contentsOf: #"\n"#.utf8)
        case 0x0D: output.append(contentsOf: #"\r"#.utf8)
        case 0x09: output.append(contentsOf: #"\t"#.utf8)
        default:
            output.append(contentsOf: #"\u00"#.utf8)
            output.append(hexDigits[Int(byte >> 4)])
            output.append(hexDigits[Int(byte & 0x0F)])
        }
    }
}

extension JSONValue: CustomStringConvertible {
    public var description: String {
        serializedString
    }
}
