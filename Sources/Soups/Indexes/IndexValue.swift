import EventJournal
import LMDBStore
import LosslessJSON

/// The order-preserving byte encoding of an indexed value.
///
/// Index keys compare as raw bytes (LMDB's default `memcmp` order), so each encoding is built
/// for that comparison to give the type's order:
/// - null is `00`, before every value;
/// - a number is `01` and eight bytes: an `Int64` with its sign bit flipped, or a `Double`
///   whose sign bit is flipped when positive and all bits flipped when negative;
/// - text is `02`, the UTF-8 bytes with `00` escaped as `00 FF`, and the terminator `00 00`,
///   so a string sorts before any longer string it prefixes.
///
/// Every encoding's length can be read from its bytes, which keeps the `_soupEntryId` that
/// follows it in an index key unambiguous.
enum IndexValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case floating(Double)
    case text(String)

    static let nullTag: UInt8 = 0x00
    static let numberTag: UInt8 = 0x01
    static let textTag: UInt8 = 0x02

    /// The value a record gives an index of `type`, following SmartStore's column rules.
    static func extract(_ value: JSONValue?, as type: IndexType) -> IndexValue {
        guard let value else { return .null }
        switch type {
        case .string, .fullText, .hashed:
            return text(of: value).map(IndexValue.text) ?? .null
        case .integer:
            guard case .number(let number) = value else { return .null }
            return .integer(integer(of: number))
        case .floating:
            guard case .number(let number) = value, !number.doubleValue.isNaN else { return .null }
            return .floating(number.doubleValue)
        case .json1:
            switch value {
            case .null: return .null
            case .bool(let flag): return .floating(flag ? 1 : 0)
            case .number(let number): return number.doubleValue.isNaN ? .null : .floating(number.doubleValue)
            case .string(let string): return .text(string)
            case .array, .object: return .text(value.serializedString)
            }
        }
    }

    /// How a query operand that falls between two integers becomes an integer operand.
    enum Rounding {
        /// An equality test: such an operand matches nothing.
        case exact
        /// A lower bound: round up.
        case up
        /// An upper bound: round down.
        case down
    }

    /// A query operand converted as SQLite converts a value compared with a column of `type`:
    /// numeric text becomes a number for numeric columns, numbers become text for text columns.
    ///
    /// - Returns: the operand in the column's encoding, or `nil` when nothing can match it.
    static func operand(_ value: JSONValue, for type: IndexType, rounding: Rounding) -> IndexValue? {
        var value = value
        if type == .integer || type == .floating, case .string(let text) = value {
            guard let number = JSONNumber(text: text) else { return nil }
            value = .number(number)
        }
        if type == .integer, case .number(let number) = value, number.int64Value == nil {
            let double = number.doubleValue
            guard !double.isNaN else { return nil }
            switch rounding {
            case .exact: guard double == double.rounded() else { return nil }
            case .up: value = .number(JSONNumber(double.rounded(.up)))
            case .down: value = .number(JSONNumber(double.rounded(.down)))
            }
        }
        let converted = extract(value, as: type)
        return converted == .null ? nil : converted
    }

    static func text(of value: JSONValue) -> String? {
        switch value {
        case .null: return nil
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number): return number.text
        case .string(let string): return string
        case .array, .object: return value.serializedString
        }
    }

    /// Numbers in an integer index keep their integral part, clamped to the `Int64` range.
    static func integer(of number: JSONNumber) -> Int64 {
        if let exact = number.int64Value { return exact }
        let double = number.doubleValue
        if double.isNaN { return 0 }
        if double >= 9_223_372_036_854_775_808.0 { return .max }
        if double <= -9_223_372_036_854_775_808.0 { return .min }
        return Int64(double.rounded(.towardZero))
    }

    /// The order-preserving bytes of this value.
    var encoded: [UInt8] {
        var bytes: [UInt8] = []
        encode(into: &bytes)
        return bytes
    }

    func encode(into bytes: inout [UInt8]) {
        switch self {
        case .null:
            bytes.append(Self.nullTag)
        case .integer(let value):
            bytes.append(Self.numberTag)
            appendBigEndian(UInt64(bitPattern: value) ^ (1 << 63), to: &bytes)
        case .floating(let value):
            bytes.append(Self.numberTag)
            // Zero has two signs in IEEE 754; fold them so 0 and -0 are one key.
            let bits = (value == 0 ? 0.0 : value).bitPattern
            appendBigEndian(bits & (1 << 63) == 0 ? bits | (1 << 63) : ~bits, to: &bytes)
        case .text(let string):
            bytes.append(Self.textTag)
            let contiguous = string.utf8.withContiguousStorageIfAvailable { text in
                // Most text has no NUL byte to escape: one copy of its bytes.
                guard !text.contains(0) else { return false }
                bytes.append(contentsOf: text)
                return true
            }
            if contiguous != true {
                for byte in string.utf8 {
                    bytes.append(byte)
                    if byte == 0 { bytes.append(0xFF) }
                }
            }
            bytes.append(0)
            bytes.append(0)
        }
    }

    /// Decodes the value at the start of `bytes`; `numbersAreIntegers` says how to read a number.
    /// - Returns: the value and the number of bytes it used, or `nil` for malformed bytes.
    static func decode<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, numbersAreIntegers: Bool) -> (
        value: IndexValue, length: Int
    )? where Bytes.Index == Int {
        guard let tag = bytes.first else { return nil }
        let body = bytes.dropFirst()
        switch tag {
        case nullTag:
            return (.null, 1)
        case numberTag:
            guard body.count >= 8 else { return nil }
            let bits = readBigEndian(body.prefix(8))
            if numbersAreIntegers { return (.integer(Int64(bitPattern: bits ^ (1 << 63))), 9) }
            let raw = bits & (1 << 63) != 0 ? bits & ~(1 << 63) : ~bits
            return (.floating(Double(bitPattern: raw)), 9)
        case textTag:
            // Most text holds no NUL byte, so its first 00 is the terminator's: decode in place.
            if let end = body.firstIndex(of: 0), body.index(after: end) < body.endIndex,
                body[body.index(after: end)] == 0
            {
                let utf8 = body[..<end]
                let text =
                    utf8.withContiguousStorageIfAvailable { String(decoding: $0, as: UTF8.self) }
                    ?? String(decoding: utf8, as: UTF8.self)
                return (.text(text), end + 2 - bytes.startIndex)
            }
            var utf8: [UInt8] = []
            guard let length = appendText(bytes, to: &utf8) else { return nil }
            return (.text(String(decoding: utf8, as: UTF8.self)), length)
        default:
            return nil
        }
    }

    /// Appends the UTF-8 bytes of the text encoded at the start of `bytes` (its tag first) to
    /// `utf8`, unescaped: for a reader that hands text on as bytes, without a `String`.
    /// - Returns: the number of bytes the encoding used, or `nil` for malformed bytes or another
    ///   type's (`utf8` may then have grown).
    static func appendText<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, to utf8: inout [UInt8]) -> Int?
    where Bytes.Index == Int {
        guard bytes.first == textTag else { return nil }
        let body = bytes.dropFirst()
        var index = body.startIndex
        while index < body.endIndex {
            // Most text holds no NUL byte: everything up to the next 00 goes at once.
            let zero = body[index...].firstIndex(of: 0) ?? body.endIndex
            utf8.append(contentsOf: body[index..<zero])
            let following = zero + 1
            guard following < body.endIndex else { return nil }
            // 00 00 ends the text; 00 and any other byte stand for a NUL byte in it.
            if body[following] == 0 { return following - bytes.startIndex + 1 }
            utf8.append(0)
            index = following + 1
        }
        return nil
    }

    /// The value as SQLite would show it to `LIKE`: numbers as text, null as nothing.
    var likeText: String? {
        switch self {
        case .null: return nil
        case .integer(let value): return String(value)
        case .floating(let value):
            // SQLite prints a REAL with at least one decimal: 3.0, not 3.
            if value == value.rounded(), abs(value) < 1e15 { return "\(Int64(value)).0" }
            return "\(value)"
        case .text(let string): return string
        }
    }
}

func appendBigEndian(_ value: UInt64, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
}

func readBigEndian(_ bytes: some Collection<UInt8>) -> UInt64 {
    bytes.reduce(0) { ($0 << 8) | UInt64($1) }
}

extension IndexValue {
    /// The value as a ``IndexType/hashed`` index stores it: the keyed digest of its text, as
    /// hexadecimal digits; null stays null.
    /// - Throws: ``SoupError/Code/invalidIndexSpec`` when the store is not encrypted, so has
    ///   no index key.
    func digested(in transaction: Transaction) throws -> IndexValue {
        guard case .text(let text) = self else { return self }
        guard let digest = transaction.keyedDigest(of: Array(text.utf8)), !digest.isEmpty else {
            throw SoupError(.invalidIndexSpec, "a hashed index needs an encrypted store: open the store with a key")
        }
        return .text(Hexadecimal.string(digest))
    }
}
