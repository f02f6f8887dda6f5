import LosslessJSON
import SalesforceAPI

/// A parsed SOSL search (wire reference §5.4) and its evaluation.
///
/// Search terms: bare words must all match (decision 0102), `"quoted phrases"` match as a whole,
/// `OR` between words gives alternatives; `*` matches any suffix and `?` one character; a word
/// without wildcards needs at least 2 characters.
struct SOSLSearch {
    enum Scope: String {
        case all = "ALL"
        case name = "NAME"
        case email = "EMAIL"
        case phone = "PHONE"
        case sidebar = "SIDEBAR"
    }

    /// Alternatives (OR) of conjunctions (AND) of words or phrases, upper-cased.
    var alternatives: [[String]]
    var scope: Scope = .all
    /// One SOQL-shaped query per RETURNING entry (selecting `Id` when no fields are given).
    var returning: [SOQLQuery] = []
    var limit = SalesforceLimits.searchLimitMax

    static let termLengthMin = 2

    static func malformed(_ message: String) -> APIFailure {
        APIFailure(errorCode: "MALFORMED_SEARCH", message: message)
    }

    static func parse(_ text: String, now: Int64) throws(APIFailure) -> SOSLSearch {
        let trimmed = text.drop { $0.isWhitespace }
        guard trimmed.prefix(4).uppercased() == "FIND" else {
            throw APIFailure.unexpectedToken(String(trimmed.prefix(10)))
        }
        let rest = trimmed.dropFirst(4).drop { $0.isWhitespace }
        guard rest.first == "{", let close = rest.firstIndex(of: "}") else {
            throw malformed("No search term found. The search term must be enclosed in braces.")
        }
        var search = SOSLSearch(alternatives: try parseTerm(String(rest[rest.index(after: rest.startIndex)..<close])))
        var parser = SOQLParser(tokens: try SOQLLexer.tokens(String(rest[rest.index(after: close)...])), now: now)
        try search.parseClauses(&parser)
        return search
    }

    static func parseTerm(_ term: String) throws(APIFailure) -> [[String]] {
        var alternatives: [[String]] = [[]]
        var remaining = Substring(term)
        while let start = remaining.firstIndex(where: { !$0.isWhitespace }) {
            remaining = remaining[start...]
            var word: String
            if remaining.first == "\"" {
                let body = remaining.dropFirst()
                let end = body.firstIndex(of: "\"") ?? body.endIndex
                word = String(body[..<end])
                remaining = end < body.endIndex ? body[body.index(after: end)...] : ""
            } else {
                let end = remaining.firstIndex(where: \.isWhitespace) ?? remaining.endIndex
                word = String(remaining[..<end])
                remaining = remaining[end...]
                if word.uppercased() == "OR" {
                    alternatives.append([])
                    continue
                }
                if word.uppercased() == "AND" { continue }
            }
            word = word.uppercased()
            let plain = word.filter { $0 != "*" && $0 != "?" }
            guard plain.count >= termLengthMin || (word.contains("?") && word.count >= termLengthMin) else {
                throw malformed("search term must be longer than one character: \(word)")
            }
            alternatives[alternatives.count - 1].append(word)
        }
        guard alternatives.allSatisfy({ !$0.isEmpty }) else {
            throw malformed("No search term found. The search term must be enclosed in braces.")
        }
        return alternatives
    }

    mutating func parseClauses(_ parser: inout SOQLParser) throws(APIFailure) {
        if parser.accept(keyword: "IN") {
            guard let scope = Scope(rawValue: parser.current.keyword) else {
                throw APIFailure.unexpectedToken(parser.current.display)
            }
            _ = parser.advance()
            self.scope = scope
            try parser.expect(keyword: "FIELDS")
        }
        if parser.accept(keyword: "RETURNING") {
            repeat { returning.append(try Self.parseReturning(&parser)) } while parser.accept(symbol: ",")
        }
        if parser.accept(keyword: "LIMIT") {
            limit = min(try parser.integer(), SalesforceLimits.searchLimitMax)
        }
        try parser.expectEnd()
    }

    static func parseReturning(_ parser: inout SOQLParser) throws(APIFailure) -> SOQLQuery {
        var query = SOQLQuery(selectItems: [.field(["Id"])], object: try parser.name())
        guard parser.accept(symbol: "(") else { return query }
        query.selectItems = try parser.parseSelectList(isSubquery: true)
        if parser.accept(keyword: "WHERE") { query.condition = try parser.parseCondition() }
        if parser.accept(keyword: "ORDER") {
            try parser.expect(keyword: "BY")
            repeat { query.orderBy.append(try parser.parseOrderItem()) } while parser.accept(symbol: ",")
        }
        if parser.accept(keyword: "LIMIT") { query.limit = try parser.integer() }
        if parser.accept(keyword: "OFFSET") { query.offset = try parser.integer() }
        try parser.expect(symbol: ")")
        return query
    }

    /// Runs the search: per RETURNING type (every type but User when none), matching live
    /// records through the entry's WHERE/ORDER BY/LIMIT, in Id order, up to the overall LIMIT.
    func run(store: OrgStore, apiVersion: String) throws(APIFailure) -> [JSONValue] {
        var queries = returning
        if queries.isEmpty {
            queries = store.schema.objects.filter { $0.name != "User" }.map {
                SOQLQuery(selectItems: [.field(["Id"])], object: $0.name)
            }
        }
        let evaluator = SOQLEvaluator(store: store, apiVersion: apiVersion, includeDeleted: false)
        var results: [JSONValue] = []
        for var query in queries {
            guard let object = store.schema.object(named: query.object) else {
                throw APIFailure.invalidType(query.object)
            }
            let matching = Set(
                store.records(of: object.name, includeDeleted: false).filter { matches($0, object: object) }
                    .compactMap { $0["Id"]?.string })
            if query.orderBy.isEmpty { query.orderBy = [SOQLOrderItem(path: ["Id"])] }
            results += try evaluator.run(query, restrictedTo: matching).rows
            if results.count >= limit { break }
        }
        return Array(results.prefix(limit))
    }

    func matches(_ record: OrgStore.Fields, object: ObjectSchema) -> Bool {
        let fields: [FieldSchema]
        switch scope {
        case .name: fields = object.nameFields
        case .email: fields = object.fields.filter { $0.type == .email }
        case .phone: fields = object.fields.filter { $0.type == .phone }
        case .all, .sidebar: fields = object.fields.filter { $0.type.isText && $0.type != .id && $0.type != .reference }
        }
        let text = fields.compactMap { record[$0.name]?.string?.uppercased() }.joined(separator: " ")
        let words = Self.words(text)
        return alternatives.contains { conjunction in
            conjunction.allSatisfy { term in
                let termWords = Self.words(term, keepingWildcards: true)
                if termWords.count > 1 {
                    return text.contains(termWords.joined(separator: " ")) || Self.containsSequence(words, termWords)
                }
                return termWords.allSatisfy { termWord in words.contains { Self.wordMatches($0, termWord) } }
            }
        }
    }

    static func words(_ text: String, keepingWildcards: Bool = false) -> [String] {
        text.split { !($0.isLetter || $0.isNumber || (keepingWildcards && ($0 == "*" || $0 == "?"))) }.map(String.init)
    }

    static func containsSequence(_ words: [String], _ sequence: [String]) -> Bool {
        guard sequence.count <= words.count else { return false }
        for start in 0...(words.count - sequence.count)
        where zip(words[start...], sequence).allSatisfy({ wordMatches($0, $1) }) {
            return true
        }
        return false
    }

    /// A word against a term word with `*` (any run) and `?` (one character).
    static func wordMatches(_ word: String, _ term: String) -> Bool {
        var pattern = ""
        for character in term {
            switch character {
            case "*": pattern.append("%")
            case "?": pattern.append("_")
            case "%", "_", "\\":
                pattern.append("\\")
                pattern.append(character)
            default: pattern.append(character)
            }
        }
        return SOQLPattern(pattern).matches(word)
    }
}
