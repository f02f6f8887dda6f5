/// A parsed full-text `match` expression.
///
/// The syntax is SmartStore's, which is SQLite FTS's query syntax with SmartStore's column names:
/// - a word matches records having that token (words are tokenized with
///   ``FullTextTokenizer``); a word that gives several tokens (`e-mail`) is a phrase;
/// - `word*` matches any token starting with `word`;
/// - `"several words"` is a phrase: the tokens must follow one another, in order, in one indexed
///   field (`"quick bro*"` may end with a prefix);
/// - `{soup:path}:term` (or `:"a phrase"`, or `:(a group)`) looks only in the `full_text` index
///   on `path`; `soup` must be the queried soup;
/// - `a b` and `a AND b` need both, `a OR b` either, `a NOT b` the first without the second;
/// - parentheses group. `NOT` binds tightest, then `AND`, then `OR`; keywords are uppercase.
indirect enum MatchExpression: Hashable, Sendable {
    case term(String, isPrefix: Bool)
    /// Two or more tokens that must be adjacent and in this order.
    case phrase([PhraseToken])
    case and(MatchExpression, MatchExpression)
    case or(MatchExpression, MatchExpression)
    case not(MatchExpression, MatchExpression)
    /// An expression that looks only in the `full_text` index on `path` of soup `soup`.
    case column(soup: String, path: String, MatchExpression)

    /// One token of a phrase.
    struct PhraseToken: Hashable, Sendable {
        var text: String
        var isPrefix: Bool

        /// Whether a token of a record's text is this one.
        func matches(_ token: String) -> Bool {
            isPrefix ? token.hasPrefix(text) : token == text
        }
    }

    /// The longest expression accepted, in characters.
    static let lengthMax = 4096
    /// The deepest nesting of parentheses accepted.
    static let nestingDepthMax = 32

    /// Parses `text`.
    /// - Throws: ``SoupError/Code/invalidQuery`` for a malformed expression.
    static func parse(_ text: String) throws(SoupError) -> MatchExpression {
        guard text.count <= lengthMax else {
            throw SoupError(.invalidQuery, "the match expression is longer than \(lengthMax) characters")
        }
        var parser = Parser(lexemes: try lex(text))
        let expression = try parser.parseOr(depth: 0)
        guard parser.position == parser.lexemes.count else {
            throw SoupError(
                .invalidQuery, "unexpected \(parser.lexemes[parser.position]) in match expression '\(text)'")
        }
        return expression
    }

    enum Lexeme: Hashable, CustomStringConvertible {
        case open, close, and, or, not
        case word(String)
        case phrase(String)
        case column(soup: String, path: String)

        var description: String {
            switch self {
            case .open: "'('"
            case .close: "')'"
            case .and: "AND"
            case .or: "OR"
            case .not: "NOT"
            case .word(let word): "'\(word)'"
            case .phrase(let phrase): "\"\(phrase)\""
            case .column(let soup, let path): "{\(soup):\(path)}:"
            }
        }
    }

    static func lex(_ text: String) throws(SoupError) -> [Lexeme] {
        var lexemes: [Lexeme] = []
        var scalars = text.unicodeScalars[...]
        while let scalar = scalars.first {
            scalars = scalars.dropFirst()
            switch scalar {
            case "(": lexemes.append(.open)
            case ")": lexemes.append(.close)
            case "\"":
                guard let end = scalars.firstIndex(of: "\"") else {
                    throw SoupError(.invalidQuery, "unterminated quote in match expression '\(text)'")
                }
                lexemes.append(.phrase(String(scalars[..<end])))
                scalars = scalars[scalars.index(after: end)...]
            case "{":
                lexemes.append(try column(&scalars, in: text))
            case _ where scalar.properties.isWhitespace:
                continue
            default:
                var word = String.UnicodeScalarView([scalar])
                while let next = scalars.first, !next.properties.isWhitespace, !"()\"{".unicodeScalars.contains(next) {
                    word.append(next)
                    scalars = scalars.dropFirst()
                }
                switch String(word) {
                case "AND": lexemes.append(.and)
                case "OR": lexemes.append(.or)
                case "NOT": lexemes.append(.not)
                case let other: lexemes.append(.word(other))
                }
            }
        }
        return lexemes
    }

    /// A column filter after its `{`: `soup:path}` and the `:` that follows.
    private static func column(_ scalars: inout Substring.UnicodeScalarView, in text: String) throws(SoupError)
        -> Lexeme
    {
        guard let end = scalars.firstIndex(of: "}") else {
            throw SoupError(.invalidQuery, "unterminated '{' in match expression '\(text)'")
        }
        let reference = String(scalars[..<end])
        let parts = reference.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw SoupError(
                .invalidQuery, "invalid soup/path reference '{\(reference)}' in match expression: use {soup:path}")
        }
        scalars = scalars[scalars.index(after: end)...]
        guard scalars.first == ":" else {
            throw SoupError(.invalidQuery, "expected ':' and a term after '{\(reference)}' in match expression")
        }
        scalars = scalars.dropFirst()
        return .column(soup: String(parts[0]), path: String(parts[1]))
    }

    struct Parser {
        let lexemes: [Lexeme]
        var position = 0

        mutating func parseOr(depth: Int) throws(SoupError) -> MatchExpression {
            var expression = try parseAnd(depth: depth)
            while peek == .or {
                position += 1
                expression = .or(expression, try parseAnd(depth: depth))
            }
            return expression
        }

        mutating func parseAnd(depth: Int) throws(SoupError) -> MatchExpression {
            var expression = try parseNot(depth: depth)
            while let next = peek, next != .or, next != .close {
                if next == .and { position += 1 }
                expression = .and(expression, try parseNot(depth: depth))
            }
            return expression
        }

        mutating func parseNot(depth: Int) throws(SoupError) -> MatchExpression {
            var expression = try parsePrimary(depth: depth)
            while peek == .not {
                position += 1
                expression = .not(expression, try parsePrimary(depth: depth))
            }
            return expression
        }

        mutating func parsePrimary(depth: Int) throws(SoupError) -> MatchExpression {
            guard let lexeme = peek else {
                throw SoupError(.invalidQuery, "the match expression ends where a term was expected")
            }
            position += 1
            switch lexeme {
            case .open:
                guard depth < MatchExpression.nestingDepthMax else {
                    throw SoupError(.invalidQuery, "match expression nested deeper than \(nestingDepthMax)")
                }
                let inner = try parseOr(depth: depth + 1)
                guard peek == .close else { throw SoupError(.invalidQuery, "missing ')' in match expression") }
                position += 1
                return inner
            case .column(let soup, let path):
                guard depth < MatchExpression.nestingDepthMax else {
                    throw SoupError(.invalidQuery, "match expression nested deeper than \(nestingDepthMax)")
                }
                return .column(soup: soup, path: path, try parsePrimary(depth: depth + 1))
            case .word(let word):
                return try terms(word)
            case .phrase(let phrase):
                return try terms(phrase)
            case .close, .and, .or, .not:
                throw SoupError(.invalidQuery, "unexpected \(lexeme) in match expression")
            }
        }

        var peek: Lexeme? {
            position < lexemes.count ? lexemes[position] : nil
        }

        /// A word or a phrase's text: one term, or a phrase when it holds several tokens. A
        /// word ending in `*` makes its last token a prefix.
        private func terms(_ text: String) throws(SoupError) -> MatchExpression {
            var tokens: [PhraseToken] = []
            for word in text.split(whereSeparator: \.isWhitespace) {
                let words = FullTextTokenizer.tokens(String(word)).map { PhraseToken(text: $0, isPrefix: false) }
                tokens += words
                if word.hasSuffix("*"), !words.isEmpty { tokens[tokens.count - 1].isPrefix = true }
            }
            guard let first = tokens.first else {
                throw SoupError(.invalidQuery, "'\(text)' holds no searchable text")
            }
            return tokens.count == 1 ? .term(first.text, isPrefix: first.isPrefix) : .phrase(tokens)
        }
    }
}
