/// One ORDER BY key.
struct SOQLOrderItem: Sendable {
    var path: [String]
    var descending = false
    var nullsLast = false
}
