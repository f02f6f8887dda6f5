/// Splits text into the tokens that `full_text` indexes store and `match` queries look up.
///
/// The rules follow SQLite FTS5's default `unicode61` tokenizer closely enough for app
/// search: a token is a maximal run of Unicode letters, digits and marks; everything else
/// separates tokens; tokens are lowercased with Unicode's full lowercase mapping. Unlike
/// `unicode61`, diacritics are kept (`café` and `cafe` are different tokens). Tokens longer
/// than ``tokenLengthMaxBytes`` are cut at a character boundary so that index keys stay small.
enum FullTextTokenizer {
    /// The longest token kept, in UTF-8 bytes; longer runs are truncated.
    static let tokenLengthMaxBytes = 128

    static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = String.UnicodeScalarView()
        func flush() {
            if !current.isEmpty {
                tokens.append(truncated(String(current).lowercased()))
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
