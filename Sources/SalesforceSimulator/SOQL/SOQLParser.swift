import Determinism
import SalesforceAPI

/// Parses the SOQL subset into a ``SOQLQuery``; syntax errors are `MALFORMED_QUERY` answers.
///
/// Grammar and rules follow the wire reference §5.2: keywords are case-insensitive, and one
/// level of a condition may chain only one kind of logical operator, so `A AND B OR C` is
/// refused with "unexpected token: OR" as Salesforce does.
struct SOQLParser {
    static let reservedWords: Set<String> = [
        "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "ORDER", "BY", "LIMIT", "OFFSET", "FOR", "IN", "LIKE",
        "NULL", "TRUE", "FALSE", "ASC", "DESC", "NULLS", "FIRST", "LAST", "INCLUDES", "EXCLUDES", "GROUP",
        "HAVING", "WITH", "USING",
    ]
    static let millisecondsPerDay: Int64 = 86_400_000
    /// The deepest nesting of parentheses, NOT and sub-queries accepted. The parser and the
    /// evaluator recurse once per level, so without a bound a hostile query such as 8,000 `(`
    /// would exhaust the stack and crash the process instead of answering `MALFORMED_QUERY`.
    static let nestingDepthMax = 64

    private var tokens: [SOQLToken]
    private var position = 0
    private var depth = 0
    /// "Now" for relative date literals such as `TODAY`, in epoch milliseconds (UTC days).
    private let now: Int64

    init(tokens: [SOQLToken], now: Int64) {
        self.tokens = tokens
        self.now = now
    }

    /// Parses a complete query.
    static func parse(_ text: String, now: Int64) throws(APIFailure) -> SOQLQuery {
        var parser = SOQLParser(tokens: try SOQLLexer.tokens(text), now: now)
        let query = try parser.parseQuery(isSubquery: false)
        try parser.expectEnd()
        return query
    }

    var current: SOQLToken { tokens[min(position, tokens.count - 1)] }

    mutating func advance() -> SOQLToken {
        let token = current
        position += 1
        return token
    }

    mutating func accept(keyword: String) -> Bool {
        guard current.keyword == keyword else { return false }
        position += 1
        return true
    }

    mutating func accept(symbol: String) -> Bool {
        guard current.kind == .symbol, current.text == symbol else { return false }
        position += 1
        return true
    }

    mutating func expect(keyword: String) throws(APIFailure) {
        guard accept(keyword: keyword) else { throw APIFailure.unexpectedToken(current.display) }
    }

    mutating func expect(symbol: String) throws(APIFailure) {
        guard accept(symbol: symbol) else { throw APIFailure.unexpectedToken(current.display) }
    }

    func expectEnd() throws(APIFailure) {
        guard current.kind == .end else { throw APIFailure.unexpectedToken(current.display) }
    }

    /// A field path or name that is not a reserved word.
    mutating func name() throws(APIFailure) -> String {
        guard current.kind == .word, !Self.reservedWords.contains(current.keyword) else {
            throw APIFailure.unexpectedToken(current.display)
        }
        return advance().text
    }

    mutating func integer() throws(APIFailure) -> Int {
        guard current.kind == .number, let value = Int(current.text), value >= 0 else {
            throw APIFailure.unexpectedToken(current.display)
        }
        position += 1
        return value
    }

    // MARK: - Query

    mutating func parseQuery(isSubquery: Bool) throws(APIFailure) -> SOQLQuery {
        try expect(keyword: "SELECT")
        var query = SOQLQuery(selectItems: [], object: "")
        if current.keyword == "COUNT", tokens.count > position + 2, tokens[position + 1].text == "(",
            tokens[position + 2].text == ")", !isSubquery
        {
            position += 3
            query.isCount = true
        } else {
            query.selectItems = try parseSelectList(isSubquery: isSubquery)
        }
        try expect(keyword: "FROM")
        query.object = try name()
        try parseClauses(into: &query, isSubquery: isSubquery)
        return query
    }

    mutating func parseSelectList(isSubquery: Bool) throws(APIFailure) -> [SOQLQuery.SelectItem] {
        var items: [SOQLQuery.SelectItem] = []
        repeat {
            if !isSubquery && accept(symbol: "(") {
                items.append(.subquery(try parseQuery(isSubquery: true)))
                try expect(symbol: ")")
            } else {
                items.append(.field(try name().split(separator: ".").map(String.init)))
            }
        } while accept(symbol: ",")
        return items
    }

    mutating func parseClauses(into query: inout SOQLQuery, isSubquery: Bool) throws(APIFailure) {
        if accept(keyword: "WHERE") { query.condition = try parseCondition() }
        if accept(keyword: "ORDER") {
            try expect(keyword: "BY")
            repeat { query.orderBy.append(try parseOrderItem()) } while accept(symbol: ",")
        }
        if accept(keyword: "LIMIT") { query.limit = try integer() }
        if current.keyword == "OFFSET" {
            if isSubquery { throw APIFailure.unexpectedToken("OFFSET") }
            position += 1
            query.offset = try integer()
        }
        if !isSubquery, accept(keyword: "FOR") {
            guard ["VIEW", "REFERENCE", "UPDATE"].contains(current.keyword) else {
                throw APIFailure.unexpectedToken(current.display)
            }
            position += 1
        }
    }

    mutating func parseOrderItem() throws(APIFailure) -> SOQLOrderItem {
        var item = SOQLOrderItem(path: try name().split(separator: ".").map(String.init))
        if accept(keyword: "DESC") {
            item.descending = true
        } else {
            _ = accept(keyword: "ASC")
        }
        if accept(keyword: "NULLS") {
            if accept(keyword: "LAST") {
                item.nullsLast = true
            } else {
                try expect(keyword: "FIRST")
            }
        }
        return item
    }

    // MARK: - Conditions

    mutating func parseCondition() throws(APIFailure) -> SOQLCondition {
        let first = try parseUnary()
        var items = [first]
        var chain: String?
        while current.keyword == "AND" || current.keyword == "OR" {
            let keyword = current.keyword
            // Salesforce needs parentheses wherever AND and OR meet on one level.
            if let chain, chain != keyword { throw APIFailure.unexpectedToken(keyword) }
            chain = keyword
            position += 1
            items.append(try parseUnary())
        }
        guard let chain else { return first }
        return chain == "AND" ? .and(items) : .or(items)
    }

    mutating func parseUnary() throws(APIFailure) -> SOQLCondition {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.nestingDepthMax else {
            throw APIFailure.malformedQuery("the condition is nested too deeply")
        }
        if accept(keyword: "NOT") { return .not(try parseUnary()) }
        if accept(symbol: "(") {
            let inner = try parseCondition()
            try expect(symbol: ")")
            return inner
        }
        return try parsePredicate()
    }

    mutating func parsePredicate() throws(APIFailure) -> SOQLCondition {
        let path = try name().split(separator: ".").map(String.init)
        if current.kind == .symbol, let op = SOQLOperator(rawValue: current.text) {
            position += 1
            return .compare(path: path, op: op, value: try parseLiteral())
        }
        if accept(keyword: "LIKE") {
            guard current.kind == .string else { throw APIFailure.unexpectedToken(current.display) }
            return .like(path: path, pattern: advance().text)
        }
        let negated = accept(keyword: "NOT")
        if accept(keyword: "IN") { return try parseInList(path: path, negated: negated) }
        if !negated, ["INCLUDES", "EXCLUDES"].contains(current.keyword) {
            let excludes = advance().keyword == "EXCLUDES"
            try expect(symbol: "(")
            var values: [String] = []
            repeat {
                guard current.kind == .string else { throw APIFailure.unexpectedToken(current.display) }
                values.append(advance().text)
            } while accept(symbol: ",")
            try expect(symbol: ")")
            return .includes(path: path, values: values, negated: excludes)
        }
        throw APIFailure.unexpectedToken(current.display)
    }

    mutating func parseInList(path: [String], negated: Bool) throws(APIFailure) -> SOQLCondition {
        try expect(symbol: "(")
        if current.keyword == "SELECT" {
            let query = try parseQuery(isSubquery: true)
            try expect(symbol: ")")
            return .semiJoin(path: path, query: query, negated: negated)
        }
        var values: [SOQLLiteral] = []
        repeat { values.append(try parseLiteral()) } while accept(symbol: ",")
        try expect(symbol: ")")
        return .within(path: path, values: values, negated: negated)
    }

    mutating func parseLiteral() throws(APIFailure) -> SOQLLiteral {
        let token = advance()
        switch token.kind {
        case .string: return .string(token.text)
        case .number:
            guard let value = Double(token.text) else { throw APIFailure.unexpectedToken(token.display) }
            return .number(value)
        case .date:
            guard let day = WallTime(iso8601: token.text + "T00:00:00Z") else {
                throw APIFailure.malformedQuery("invalid date: \(token.text)")
            }
            let start = day.millisecondsSinceEpoch
            return .temporal(lower: start, upper: start + Self.millisecondsPerDay, isDate: true)
        case .dateTime:
            guard let time = WallTime(iso8601: token.text) else {
                throw APIFailure.malformedQuery("invalid datetime: \(token.text)")
            }
            // Salesforce stores whole seconds and ignores a literal's milliseconds.
            let second = Self.floorToSecond(time.millisecondsSinceEpoch)
            return .temporal(lower: second, upper: second + 1000, isDate: false)
        case .word: return try parseWordLiteral(token)
        case .symbol, .end: throw APIFailure.unexpectedToken(token.display)
        }
    }

    mutating func parseWordLiteral(_ token: SOQLToken) throws(APIFailure) -> SOQLLiteral {
        let today = Self.floorToDay(now)
        let day = Self.millisecondsPerDay
        switch token.keyword {
        case "NULL": return .null
        case "TRUE": return .bool(true)
        case "FALSE": return .bool(false)
        case "TODAY": return .temporal(lower: today, upper: today + day, isDate: true)
        case "YESTERDAY": return .temporal(lower: today - day, upper: today, isDate: true)
        case "TOMORROW": return .temporal(lower: today + day, upper: today + 2 * day, isDate: true)
        case "LAST_N_DAYS", "NEXT_N_DAYS":
            try expect(symbol: ":")
            let count = Int64(min(try integer(), 100_000))
            // LAST_N_DAYS:n covers the n days before today and today itself; NEXT_N_DAYS:n the n after.
            return token.keyword == "LAST_N_DAYS"
                ? .temporal(lower: today - count * day, upper: today + day, isDate: true)
                : .temporal(lower: today + day, upper: today + (count + 1) * day, isDate: true)
        default:
            guard let range = SOQLDateLiteral.range(token.keyword, today: today) else {
                throw APIFailure.unexpectedToken(token.display)
            }
            return .temporal(lower: range.lower, upper: range.upper, isDate: true)
        }
    }

    static func floorToSecond(_ milliseconds: Int64) -> Int64 {
        milliseconds - ((milliseconds % 1000) + 1000) % 1000
    }

    static func floorToDay(_ milliseconds: Int64) -> Int64 {
        let remainder = ((milliseconds % millisecondsPerDay) + millisecondsPerDay) % millisecondsPerDay
        return milliseconds - remainder
    }
}
