/// A parsed SOQL query (the subset in docs/simulator.md).
struct SOQLQuery: Sendable {
    enum SelectItem: Sendable {
        case field([String])
        case subquery(SOQLQuery)
    }

    var selectItems: [SelectItem]
    /// The object (or, in a sub-query, the child relationship) as written.
    var object: String
    var condition: SOQLCondition?
    var orderBy: [SOQLOrderItem] = []
    var limit: Int?
    var offset: Int?
    /// `SELECT COUNT() FROM …`: only the count is returned.
    var isCount = false
}
