/// Splits SOQL text into the tokens ``SOQLQuery`` works on.
///
/// Spaces, tabs, carriage returns and line feeds separate words. Mobile SDK splits on the space
/// character only, which misreads a query with a clause keyword after a line break; see
/// docs/decisions/0306-soql-whitespace.md. Quoted strings (a quote after `\` does not close) and
/// parenthesized groups (nested, with quotes inside) are single tokens.
enum SOQLTokenizer {
    struct Token: Hashable {
        enum Kind: Hashable {
            case word, space, string, group
        }

        var kind: Kind
        var text: String
    }

    /// The deepest parenthesis nesting accepted: real queries nest one or two levels; the limit
    /// keeps hostile input bounded.
    static let nestingDepthMax = 64

    /// Whether `character` separates words.
    static func isSpace(_ character: Character) -> Bool {
        character == " " || character == "\t" || character == "\n" || character == "\r" || character == "\r\n"
    }

    static func tokens(of text: String) throws(SyncError) -> [Token] {
        let characters = Array(text)
        var tokens: [Token] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let end: Int
            let kind: Token.Kind
            switch character {
            case _ where isSpace(character):
                end = characters[index...].firstIndex { !isSpace($0) } ?? characters.count
                kind = .space
            case "'":
                end = try stringEnd(characters, from: index, query: text)
                kind = .string
            case "(":
                end = try groupEnd(characters, from: index, query: text)
                kind = .group
            case ")":
                throw SyncError(.malformedQuery, "SOQL query has an unbalanced \")\": \(text)")
            default:
                end =
                    characters[index...].firstIndex { isSpace($0) || $0 == "'" || $0 == "(" || $0 == ")" }
                    ?? characters.count
                kind = .word
            }
            tokens.append(Token(kind: kind, text: String(characters[index..<end])))
            index = end
        }
        return mergingTwoWordKeywords(tokens)
    }

    /// The index just past the closing quote of the string that starts at `start`.
    private static func stringEnd(_ characters: [Character], from start: Int, query: String) throws(SyncError) -> Int {
        var index = start + 1
        while index < characters.count {
            if characters[index] == "'", characters[index - 1] != "\\" { return index + 1 }
            index += 1
        }
        throw SyncError(.malformedQuery, "SOQL query has an unterminated string: \(query)")
    }

    /// The index just past the `)` that closes the group that starts at `start`.
    private static func groupEnd(_ characters: [Character], from start: Int, query: String) throws(SyncError) -> Int {
        var depth = 0
        var index = start
        while index < characters.count {
            switch characters[index] {
            case "'":
                index = try stringEnd(characters, from: index, query: query)
                continue
            case "(":
                depth += 1
                guard depth <= nestingDepthMax else {
                    throw SyncError(.malformedQuery, "SOQL query nests parentheses deeper than \(nestingDepthMax).")
                }
            case ")":
                depth -= 1
                if depth == 0 { return index + 1 }
            default:
                break
            }
            index += 1
        }
        throw SyncError(.malformedQuery, "SOQL query has an unbalanced \"(\": \(query)")
    }

    /// Joins `group`/`order`, a space run and `by` into one word so the clause keywords are whole tokens.
    private static func mergingTwoWordKeywords(_ tokens: [Token]) -> [Token] {
        var merged: [Token] = []
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            if token.kind == .word, ["group", "order"].contains(token.text.lowercased()), index + 2 < tokens.count,
                tokens[index + 1].kind == .space, tokens[index + 2].kind == .word,
                tokens[index + 2].text.lowercased() == "by"
            {
                merged.append(Token(kind: .word, text: token.text.lowercased() + " by"))
                index += 3
            } else {
                merged.append(token)
                index += 1
            }
        }
        return merged
    }
}
