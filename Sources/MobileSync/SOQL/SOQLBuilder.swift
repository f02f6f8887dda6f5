/// Writes a SOQL query from its clauses, with lowercase keywords, as Mobile SDK's builder does.
///
/// Empty clauses are left out; `limit` and `offset` only appear when greater than zero.
///
/// ```swift
/// var builder = SOQLBuilder(fields: ["Id", "Name"], from: "Account")
/// builder.where = "Name like 'A%'"
/// try builder.build()  // "select Id, Name from Account where Name like 'A%'"
/// ```
public struct SOQLBuilder: Hashable, Sendable {
    /// The select list, already joined.
    public var fields: String
    /// The table (sObject type).
    public var from: String
    /// The `where` condition, without the keyword.
    public var `where`: String?
    /// The `group by` list, without the keyword.
    public var groupBy: String?
    /// The `having` condition, without the keyword.
    public var having: String?
    /// The `order by` list, without the keyword.
    public var orderBy: String?
    /// The row limit; ignored unless greater than zero.
    public var limit: Int?
    /// The row offset; ignored unless greater than zero.
    public var offset: Int?

    /// Creates a builder selecting `fields`, joined with `", "`, from `from`.
    public init(fields: [String], from: String) {
        self.init(fields: fields.joined(separator: ", "), from: from)
    }

    /// Creates a builder selecting an already joined field list from `from`.
    public init(fields: String, from: String) {
        self.fields = fields
        self.from = from
    }

    /// The query text.
    ///
    /// - Throws: ``SyncError/Code/malformedQuery`` with Mobile SDK's messages "No field selected"
    ///   or "No table specified".
    public func build() throws(SyncError) -> String {
        guard !fields.isEmpty else { throw SyncError(.malformedQuery, "No field selected") }
        guard !from.isEmpty else { throw SyncError(.malformedQuery, "No table specified") }
        var query = "select \(fields) from \(from)"
        let optional: [(String, String?)] = [("where", `where`), ("group by", groupBy), ("having", having)]
        for (keyword, text) in optional + [("order by", orderBy)] {
            if let text, !text.isEmpty { query += " \(keyword) \(text)" }
        }
        if let limit, limit > 0 { query += " limit \(limit)" }
        if let offset, offset > 0 { query += " offset \(offset)" }
        return query
    }
}
