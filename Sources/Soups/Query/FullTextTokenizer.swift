import Foundation

/// Splits text into the tokens that `full_text` indexes store and `match` queries look up.
///
/// The rules follow SQLite FTS5's default `unicode61` tokenizer (`remove_diacritics 1`, what
/// SmartStore's full-text soups use) closely enough for app search: a token is a maximal run of
/// Unicode letters, digits and marks; everything else separates tokens; tokens are lowercased
/// with Unicode's full lowercase mapping; a Latin letter with one diacritic becomes its base
/// letter (`café` and `cafe` are one token) and combining diacritics U+0300–U+036F are dropped,
/// while a letter with two diacritics (`ế`) and other scripts' marks are kept, as `unicode61`
/// keeps them in that mode. Tokens longer than ``tokenLengthMaxBytes`` are cut at a character
/// boundary so that index keys stay small.
enum FullTextTokenizer {
    /// The longest token kept, in UTF-8 bytes; longer runs are truncated.
    static let tokenLengthMaxBytes = 128

    static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = String.UnicodeScalarView()
        func flush() {
            if !current.isEmpty {
                tokens.append(truncated(withoutDiacritics(String(current).lowercased())))
                current = String.UnicodeScalarView()
            }
        }
        for scalar in text.unicodeScalars {
            if isTokenScalar(scalar) {
                current.append(scalar)
            } else {
                flush()
            }
        }
        flush()
        return tokens
    }

    static func isTokenScalar(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        if properties.isAlphabetic { return true }
        switch properties.generalCategory {
        case .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark:
            return true
        default:
            return false
        }
    }

    /// `token` with the diacritics of its Latin letters removed.
    static func withoutDiacritics(_ token: String) -> String {
        // Most tokens are ASCII: nothing to fold and nothing to allocate.
        guard token.utf8.contains(where: { $0 >= 0x80 }) else { return token }
        var folded = String.UnicodeScalarView()
        for scalar in token.unicodeScalars where !combiningDiacritics.contains(scalar.value) {
            folded.append(latinBaseLetters[scalar.value] ?? scalar)
        }
        return String(folded)
    }

    private static let combiningDiacritics: ClosedRange<UInt32> = 0x300...0x36F

    /// Each precomposed Latin letter whose canonical decomposition is a base letter and one
    /// combining diacritic, mapped to that base letter: built once from Unicode's own data.
    private static let latinBaseLetters: [UInt32: Unicode.Scalar] = {
        var bases: [UInt32: Unicode.Scalar] = [:]
        for range in [0xC0...0x24F, 0x1E00...0x1EFF] as [ClosedRange<UInt32>] {
            for value in range {
                guard let scalar = Unicode.Scalar(value) else { continue }
                let parts = Array(String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars)
                guard parts.count == 2, parts[0].isASCII, combiningDiacritics.contains(parts[1].value) else {
                    continue
                }
                bases[value] = parts[0]
            }
        }
        return bases
    }()

    private static func truncated(_ token: String) -> String {
        guard token.utf8.count > tokenLengthMaxBytes else { return token }
        var result = String.UnicodeScalarView()
        var length = 0
        for scalar in token.unicodeScalars {
            length += String(scalar).utf8.count
            if length > tokenLengthMaxBytes { break }
            result.append(scalar)
        }
        return String(result)
    }
}
