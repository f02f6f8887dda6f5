/// A value as SQLite holds it: what a soup table's column gives, and what an index walk
/// compares its keys with.
///
/// Smart SQL's virtual tables and the ``SoupReader`` speak these values only, so neither knows
/// how the other stores or encodes them.
enum SmartSQLValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    /// Whether `self` comes before `other` in SQLite's order for values of one column: NULL
    /// first, then numbers, then text in byte order (the BINARY collation).
    func precedes(_ other: SmartSQLValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return false
        case (.null, _): return true
        case (_, .null): return false
        case (.text(let lhs), .text(let rhs)): return lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
        case (.text, _): return false
        case (_, .text): return true
        default: return numericValue < other.numericValue
        }
    }

    /// The number, for ordering numbers of either kind; 0 for text and NULL.
    private var numericValue: Double {
        switch self {
        case .integer(let value): return Double(value)
        case .real(let value): return value
        case .null, .text: return 0
        }
    }
}
