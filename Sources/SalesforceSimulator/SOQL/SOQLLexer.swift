/// One SOQL token.
struct SOQLToken: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// An identifier, keyword or dotted field path.
        case word
        case string
        case number
        case date
        case dateTime
        case symbol
        case end
    }

    var kind: Kind
    /// The decoded text (strings without quotes, escapes resolved except LIKE's `\%`, `\_`).
    var text: String

    /// The keyword form of a word, for case-insensitive matching.
    var keyword: String { kind == .word ? text.uppercased() : "" }

    /// How the token is named in a `MALFORMED_QUERY` message.
    var display: String { kind == .end ? "<EOF>" : (kind == .string ? "'\(text)'" : text) }
}

/// Splits SOQL text into tokens; every failure is a `MALFORMED_QUERY`.
struct SOQLLexer {
    /// The longest query text accepted; longer input is refused before lexing so that hostile
    /// input cannot make the simulator spend unbounded time (Salesforce's own URI limit is 16 KB).
    static let queryLengthMax = 100_000

    private let characters: [Character]
    private var index = 0

    init(_ text: String) {
        characters = Array(text)
    }

    static func tokens(_ text: String) throws(APIFailure) -> [SOQLToken] {
        guard text.utf8.count <= queryLengthMax else { throw APIFailure.malformedQuery("query too long") }
        var lexer = SOQLLexer(text)
        var tokens: [SOQLToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func peek(_ offset: Int = 0) -> Character? {
        index + offset < characters.count ? characters[index + offset] : nil
    }

    mutating func next() throws(APIFailure) -> SOQLToken {
        while let character = peek(), character.isWhitespace { index += 1 }
        guard let character = peek() else { return SOQLToken(kind: .end, text: "") }
        if character == "'" { return try lexString() }
        if character.isASCII && (character.isLetter || character == "_") { return lexWord() }
        if character.isASCII && character.isNumber { return try lexNumberOrDateLiteral() }
        if character == "-" || character == "+", let following = peek(1), following.isASCII, following.isNumber {
            index += 1
            var token = try lexNumberOrDateLiteral()
            if character == "-" { token.text = "-" + token.text }
            return token
        }
        return try lexSymbol(character)
    }

    private mutating func lexWord() -> SOQLToken {
        let start = index
        while let character = peek(), character.isASCII,
            character.isLetter || character.isNumber || character == "_"
                || (character == "." && peek(1).map { $0.isLetter || $0 == "_" } == true)
        {
            index += 1
        }
        return SOQLToken(kind: .word, text: String(characters[start..<index]))
    }

    private mutating func lexNumberOrDateLiteral() throws(APIFailure) -> SOQLToken {
        let start = index
        if isDateAhead() {
            index += 10
            guard peek() == "T" else { return SOQLToken(kind: .date, text: String(characters[start..<index])) }
            while let character = peek(), character.isASCII,
                character.isNumber || ":.+-TZ".contains(character)
            {
                index += 1
            }
            return SOQLToken(kind: .dateTime, text: String(characters[start..<index]))
        }
        while let character = peek(), character.isASCII, character.isNumber { index += 1 }
        if peek() == ".", let following = peek(1), following.isASCII, following.isNumber {
            index += 1
            while let character = peek(), character.isASCII, character.isNumber { index += 1 }
        }
        if let character = peek(), character.isLetter {
            throw APIFailure.unexpectedToken(String(characters[start...index]))
        }
        return SOQLToken(kind: .number, text: String(characters[start..<index]))
    }

    /// Whether `YYYY-MM-DD` starts here.
    private func isDateAhead() -> Bool {
        guard index + 10 <= characters.count else { return false }
        for (offset, character) in characters[index..<index + 10].enumerated() {
            let expectsDash = offset == 4 || offset == 7
            if expectsDash ? character != "-" : !(character.isASCII && character.isNumber) { return false }
        }
        return true
    }

    private mutating func lexString() throws(APIFailure) -> SOQLToken {
        index += 1
        var text = ""
        while let character = peek() {
            index += 1
            if character == "'" { return SOQLToken(kind: .string, text: text) }
            guard character == "\\" else {
                text.append(character)
                continue
            }
            guard let escaped = peek() else { break }
            index += 1
            switch escaped {
            case "n", "N": text.append("\n")
            case "r", "R": text.append("\r")
            case "t", "T": text.append("\t")
            case "b", "B": text.append("\u{8}")
            case "f", "F": text.append("\u{c}")
            case "'", "\"": text.append(escaped)
            // LIKE patterns read these two escapes themselves, so keep the backslash.
            case "\\", "%", "_":
                text.append("\\")
                text.append(escaped)
            case "u": text.append(try lexUnicodeEscape())
            default: throw APIFailure.malformedQuery("Invalid string literal: illegal escape sequence \\\(escaped)")
            }
        }
        throw APIFailure.malformedQuery("unexpected token: <EOF> (unterminated string literal)")
    }

    private mutating func lexUnicodeEscape() throws(APIFailure) -> Character {
        guard index + 4 <= characters.count,
            let value = UInt32(String(characters[index..<index + 4]), radix: 16),
            let scalar = Unicode.Scalar(value)
        else { throw APIFailure.malformedQuery("Invalid string literal: bad \\u escape") }
        index += 4
        return Character(scalar)
    }

    private mutating func lexSymbol(_ character: Character) throws(APIFailure) -> SOQLToken {
        let pair = peek(1).map { String(character) + String($0) } ?? ""
        if ["!=", "<>", "<=", ">="].contains(pair) {
            index += 2
            return SOQLToken(kind: .symbol, text: pair == "<>" ? "!=" : pair)
        }
        if "(),=<>:".contains(character) {
            index += 1
            return SOQLToken(kind: .symbol, text: String(character))
        }
        throw APIFailure.unexpectedToken(String(character))
    }
}
