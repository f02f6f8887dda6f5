/// A parsed full-text `match` expression.
///
/// The syntax is the core of SQLite FTS5's query syntax:
/// - a word matches records having that token (words are tokenized with
///   ``FullTextTokenizer``; a word giving several tokens needs all of them);
/// - `word*` matches any token starting with `word`;
/// - `"several words"` needs every token (this store keeps no positions, so it does not
///   check that they are adjacent);
/// - `a b` and `a AND b` need both, `a OR b` either, `a NOT b` the first without the second;
/// - parentheses group. `NOT` binds tightest, then `AND`, then `OR`; keywords are uppercase.
indirect enum MatchExpression: Hashable, Sendable {
    case term(String, isPrefix: Bool)
    case and(MatchExpression, MatchExpression)
    case or(MatchExpression, MatchExpression)
    case not(MatchExpression, MatchExpression)

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

        var description: String {
            switch self {
            case .open: "'('"
            case .close: "')'"
            case .and: "AND"
            case .or: "OR"
            case .not: "NOT"
            case .word(let word): "'\(word)'"
            case .phrase(let phrase): "\"\(phrase)\""
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
            case _ where scalar.properties.isWhitespace:
                continue
            default:
                var word = String.UnicodeScalarView([scalar])
                while let next = scalars.first, !next.properties.isWhitespace, !"()\"".unicodeScalars.contains(next) {
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
            case .word(let word):
                let isPrefix = word.hasSuffix("*")
                return try terms(isPrefix ? String(word.dropLast()) : word, lastIsPrefix: isPrefix)
            case .phrase(let phrase):
                return try terms(phrase, lastIsPrefix: false)
            case .close, .and, .or, .not:
                throw SoupError(.invalidQuery, "unexpected \(lexeme) in match expression")
            }
        }

        var peek: Lexeme? {
            position < lexemes.count ? lexemes[position] : nil
        }

        private func terms(_ text: String, lastIsPrefix: Bool) throws(SoupError) -> MatchExpression {
            let tokens = FullTextTokenizer.tokens(text)
            guard var expression = tokens.first.map({ MatchExpression.term($0, isPrefix: false) }) else {
                throw SoupError(.invalidQuery, "'\(text)' holds no searchable text")
            }
            for token in tokens.dropFirst() {
                expression = .and(expression, .term(token, isPrefix: false))
            }
            if lastIsPrefix, let last = tokens.last {
                expression = Self.markingLastPrefix(expression, last)
            }
            return expression
        }

        private static func markingLastPrefix(_ expression: MatchExpression, _ last: String) -> MatchExpression {
            switch expression {
            case .term: return .term(last, isPrefix: true)
            case .and(let lhs, .term): return .and(lhs, .term(last, isPrefix: true))
            default: return expression
            }
        }
    }
}
