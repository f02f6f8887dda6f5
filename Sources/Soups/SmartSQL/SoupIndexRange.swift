/// Which keys of one index a walk reads.
///
/// Operands are already in the index's own type (text for text indexes, integers for integer
/// indexes, reals for floating ones): the virtual table converts SQLite's operands as SQLite
/// compares them with the column before it asks for a walk.
enum SoupIndexRange: Hashable, Sendable {
    /// Every key, NULL ones included (an ordered walk of the whole index).
    case all
    /// The records whose value is NULL (`IS NULL`).
    case nulls
    /// The records whose value equals the operand.
    case equal(SmartSQLValue)
    /// The records whose value lies between the bounds; NULL values never do. A `nil` bound
    /// leaves that end open, so `between(nil, nil)` is `IS NOT NULL`.
    case between(lower: Bound?, upper: Bound?)

    /// One end of a range.
    struct Bound: Hashable, Sendable {
        var value: SmartSQLValue
        /// Whether the value itself is inside the range (`>=`, `<=`) or not (`>`, `<`).
        var isInclusive: Bool
    }
}
