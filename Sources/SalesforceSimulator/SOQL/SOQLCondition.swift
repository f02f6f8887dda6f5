/// A WHERE clause.
indirect enum SOQLCondition: Sendable {
    case and([SOQLCondition])
    case or([SOQLCondition])
    case not(SOQLCondition)
    case compare(path: [String], op: SOQLOperator, value: SOQLLiteral)
    case like(path: [String], pattern: String)
    case within(path: [String], values: [SOQLLiteral], negated: Bool)
    case semiJoin(path: [String], query: SOQLQuery, negated: Bool)
    case includes(path: [String], values: [String], negated: Bool)
}
