/// A literal in a condition. Temporal literals are half-open ranges of epoch milliseconds, so
/// a date, a datetime (one second wide) and `LAST_N_DAYS:n` compare the same way.
enum SOQLLiteral: Sendable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case temporal(lower: Int64, upper: Int64, isDate: Bool)
}
