/// A JSON number kept as the exact text it was written with.
///
/// Equality is textual (`1.0` and `1` differ), which is what byte-exact replay needs; use
/// ``doubleValue`` or ``int64Value`` to compare numerically.
public struct JSONNumber: Hashable, Sendable, CustomStringConvertible {
    /// The literal, as it appeared in the document (for example `-12.50e3`).
    public let text: String

    /// Creates a number from JSON number text.
    ///
    /// - Returns: `nil` when `text` is not a valid JSON number.
    public init?(text: String) {
        var bytes = Array(text.utf8)
        guard JSONNumber.isValidLiteral(&bytes) else { return nil }
        self.text = text
    }

    init(validatedText: String) {
        text = validatedText
    }

    /// Creates a number from an integer.
    public init(_ value: Int64) {
        text = String(value)
    }

    /// Creates a number from a finite double, written in Swift's shortest round-tripping form.
    ///
    /// Non-finite values, which JSON cannot express, become `0`.
    public init(_ value: Double) {
        guard value.isFinite else {
            text = "0"
            return
        }
        if value == value.rounded(), abs(value) < 1e15 {
            text = String(Int64(value))
        } else {
            text = "\(value)"
        }
    }

    /// The value as a 64-bit integer, when the literal is an integer in range.
    public var int64Value: Int64? {
        Int64(text)
    }

    /// The value as a double (the nearest one for long literals).
    public var doubleValue: Double {
        Double(text) ?? 0
    }

    public var description: String {
        text
    }

    static func isValidLiteral(_ bytes: inout [UInt8]) -> Bool {
        var index = 0
        return scanLiteral(bytes, &index) && index == bytes.count
    }

    /// Advances `index` over a JSON number starting there; false when there is none.
    static func scanLiteral(_ bytes: [UInt8], _ index: inout Int) -> Bool {
        func isDigit(_ position: Int) -> Bool {
            position < bytes.count && bytes[position] >= UInt8(ascii: "0") && bytes[position] <= UInt8(ascii: "9")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard isDigit(index) else { return false }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while isDigit(index) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard isDigit(index) else { return false }
            while isDigit(index) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard isDigit(index) else { return false }
            while isDigit(index) { index += 1 }
        }
        return true
    }
}
