/// A SOQL query split into its top-level clauses, for the few rewrites Mobile Sync makes.
///
/// This is not a SOQL parser. Like Mobile SDK's mutator it splits the text into words, quoted
/// strings and parenthesized groups, and recognises the clause keywords `select`, `from`,
/// `where`, `group by`, `having`, `order by`, `limit` and `offset` (any case) only as whole
/// top-level words. Sub-queries and quoted text stay opaque. Any space, tab or line break
/// separates words (Mobile SDK only splits on spaces; see docs/decisions/0306-soql-whitespace.md).
///
/// ```swift
/// var query = try SOQLQuery(parsing: "SELECT Name FROM Account")
/// query.addSelectFields("Id")
/// try query.build()  // "select Id,Name from Account"
/// ```
public struct SOQLQuery: Hashable, Sendable {
    /// The clauses' texts, trimmed, keyed by clause.
    var clauses: [Clause: String]
    /// The select list without parenthesized sub-queries, to test which fields are selected.
    var selectWithoutSubqueries: String

    /// The top-level clauses, in the order the builder writes them.
    enum Clause: String, CaseIterable, Hashable, Sendable {
        case select, from, `where`
        case groupBy = "group by"
        case having
        case orderBy = "order by"
        case limit, offset
    }

    /// Splits `text` into its clauses.
    ///
    /// - Throws: ``SyncError/Code/malformedQuery`` for an unterminated string, unbalanced
    ///   parentheses, text before `select`, or a clause keyword used twice at the top level.
    public init(parsing text: String) throws(SyncError) {
        let tokens = try SOQLTokenizer.tokens(of: text)
        var clauses: [Clause: String] = [:]
        var selectWithoutSubqueries = ""
        var current: Clause?
        for token in tokens {
            if token.kind == .word, let clause = Clause(rawValue: token.text.lowercased()) {
                guard clauses[clause] == nil else {
                    throw SyncError(
                        .malformedQuery, "SOQL query has two top-level \"\(clause.rawValue)\" clauses: \(text)")
                }
                clauses[clause] = ""
                current = clause
                continue
            }
            guard let clause = current else {
                if token.kind == .space { continue }
                throw SyncError(.malformedQuery, "SOQL query does not start with a clause keyword: \(text)")
            }
            clauses[clause, default: ""] += token.text
            if clause == .select, token.kind != .group { selectWithoutSubqueries += token.text }
        }
        self.clauses = clauses.mapValues(Self.trimmed)
        self.selectWithoutSubqueries = Self.trimmed(selectWithoutSubqueries)
    }

    /// Whether the top-level select list names `field` exactly (sub-queries do not count).
    public func isSelectingField(_ field: String) -> Bool {
        selectWithoutSubqueries.split(whereSeparator: { $0 == "," || SOQLTokenizer.isSpace($0) }).contains {
            $0 == field
        }
    }

    /// Whether the query has a top-level `order by`.
    public var hasOrderBy: Bool {
        !(clauses[.orderBy] ?? "").isEmpty
    }

    /// Whether the top-level `order by` is exactly `field`, spaces ignored (`LastModifiedDate DESC`
    /// is not ordering by `LastModifiedDate`).
    public func isOrderingBy(_ field: String) -> Bool {
        let orderBy = (clauses[.orderBy] ?? "").filter { !SOQLTokenizer.isSpace($0) }
        return orderBy == field.filter { !SOQLTokenizer.isSpace($0) }
    }

    /// Puts `fields` (a comma-separated list) in front of the select list.
    public mutating func addSelectFields(_ fields: String) {
        setSelect(fields + "," + (clauses[.select] ?? ""))
    }

    /// Replaces the select list with `fields`.
    public mutating func replaceSelectFields(_ fields: String) {
        setSelect(fields)
    }

    /// Adds `predicate` in front of the top-level `where`, joined with `and` and without
    /// parentheses, as Mobile SDK does (see docs/decisions/0302-resync-predicate-without-parentheses.md).
    public mutating func addWherePredicates(_ predicate: String) {
        let existing = clauses[.where] ?? ""
        clauses[.where] = existing.isEmpty ? predicate : predicate + " and " + existing
    }

    /// Replaces the top-level `order by` with `orderBy`; an empty string removes it.
    public mutating func replaceOrderBy(_ orderBy: String) {
        clauses[.orderBy] = Self.trimmed(orderBy)
    }

    /// The query rebuilt with lowercase keywords: `select … from …[ where …][ group by …]…`.
    ///
    /// - Throws: ``SyncError/Code/malformedQuery`` when the select list or table is missing, or
    ///   `limit`/`offset` is not an integer.
    public func build() throws(SyncError) -> String {
        var builder = SOQLBuilder(fields: clauses[.select] ?? "", from: clauses[.from] ?? "")
        builder.where = clauses[.where]
        builder.groupBy = clauses[.groupBy]
        builder.having = clauses[.having]
        builder.orderBy = clauses[.orderBy]
        builder.limit = try Self.integer(clauses[.limit], clause: .limit)
        builder.offset = try Self.integer(clauses[.offset], clause: .offset)
        return try builder.build()
    }

    private mutating func setSelect(_ fields: String) {
        let text = Self.trimmed(fields)
        // The mutator's "selected fields" view never contains sub-queries, so re-tokenizing
        // keeps the rule that parenthesized groups do not count as selected fields.
        let groups = (try? SOQLTokenizer.tokens(of: text)) ?? []
        clauses[.select] = text
        selectWithoutSubqueries = Self.trimmed(groups.filter { $0.kind != .group }.map(\.text).joined())
    }

    private static func integer(_ text: String?, clause: Clause) throws(SyncError) -> Int? {
        guard let text, !text.isEmpty else { return nil }
        guard let value = Int(text) else {
            throw SyncError(.malformedQuery, "SOQL \"\(clause.rawValue)\" must be an integer, not \"\(text)\".")
        }
        return value
    }

    static func trimmed(_ text: String) -> String {
        String(text.drop(while: SOQLTokenizer.isSpace).reversed().drop(while: SOQLTokenizer.isSpace).reversed())
    }
}
