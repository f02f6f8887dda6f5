/// A Salesforce record id, always held in its 18-character, case-insensitive form.
///
/// Salesforce ids are 15 case-sensitive base-62 characters (a 3-character key prefix naming the
/// object type, then 12 more) plus a 3-character suffix that encodes which of the 15 are upper
/// case, so that the 18-character form survives case-insensitive systems. This type validates
/// that suffix, as the server does (a wrong suffix answers `MALFORMED_ID`).
public struct SalesforceID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 18-character id.
    public let rawValue: String

    private static let suffixAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ012345")

    /// Validates and normalises an id given in 15- or 18-character form.
    ///
    /// - Returns: `nil` when the text is not base-62, has another length, or (for 18 characters)
    ///   carries a suffix that does not match the first 15 characters.
    public init?(_ text: some StringProtocol) {
        let characters = Array(text)
        guard characters.count == 15 || characters.count == 18,
            characters.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else { return nil }
        let base = String(characters.prefix(15))
        let expected = base + Self.checksum(of: base)
        if characters.count == 18 {
            // The suffix is case-insensitive on the wire; the 15 characters before it are not.
            guard String(characters.suffix(3)).uppercased() == expected.suffix(3) else { return nil }
        }
        rawValue = expected
    }

    /// Builds an id from a 3-character key prefix and a counter, for ids minted by the simulator.
    ///
    /// The 12 middle characters are the counter in base 62, zero-padded, so ids of one type sort
    /// in creation order.
    public init(keyPrefix: String, counter: UInt64) {
        let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        var value = counter
        var middle: [Character] = Array(repeating: "0", count: 12)
        var index = 11
        while value > 0 && index >= 0 {
            middle[index] = digits[Int(value % 62)]
            value /= 62
            index -= 1
        }
        // Pad a short prefix so the base is always 15 characters, as the checksum needs.
        let prefix = String((keyPrefix + "000").prefix(3))
        let base = prefix + String(middle)
        rawValue = base + Self.checksum(of: base)
    }

    /// The 3-character prefix naming the object type (`001` Account, `003` Contact).
    public var keyPrefix: String { String(rawValue.prefix(3)) }

    /// The 15-character, case-sensitive form.
    public var shortForm: String { String(rawValue.prefix(15)) }

    /// The 18-character id.
    public var description: String { rawValue }

    /// Orders ids by their 18-character text.
    public static func < (lhs: SalesforceID, rhs: SalesforceID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The 3-character suffix of a 15-character id: for each 5-character chunk, a bit per upper
    /// case letter (first character is bit 0) indexes the suffix alphabet.
    static func checksum(of base: String) -> String {
        let characters = Array(base)
        var suffix = ""
        for chunk in 0..<3 {
            var bits = 0
            for position in 0..<5 {
                let character = characters[chunk * 5 + position]
                if character.isASCII && character.isUppercase { bits |= 1 << position }
            }
            suffix.append(suffixAlphabet[bits])
        }
        return suffix
    }
}
