/// A comparison operator; `<>` is read as `!=` (decision 0101).
enum SOQLOperator: String, Sendable {
    case equal = "="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
}
