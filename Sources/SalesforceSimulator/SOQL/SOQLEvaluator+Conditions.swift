import Determinism
import LosslessJSON
import SalesforceAPI

extension SOQLEvaluator {
    /// Checks a condition's paths and literal types.
    func check(_ condition: SOQLCondition, object: ObjectSchema) throws(APIFailure) {
        switch condition {
        case .and(let items), .or(let items):
            for item in items { try check(item, object: object) }
        case .not(let inner):
            try check(inner, object: object)
        case .compare(let path, let op, let literal):
            let field = try resolve(path, in: object).field
            try checkLiteral(literal, for: field)
            if field.type == .boolean, op != .equal, op != .notEqual {
                throw APIFailure.malformedQuery("invalid operator on boolean field: \(field.name)")
            }
        case .like(let path, _):
            let field = try resolve(path, in: object).field
            guard field.type.isText else {
                throw APIFailure.malformedQuery("invalid operator on field \(field.name): LIKE needs a text field")
            }
        case .within(let path, let values, _):
            let field = try resolve(path, in: object).field
            for literal in values { try checkLiteral(literal, for: field) }
        case .semiJoin(let path, let query, _):
            _ = try resolve(path, in: object)
            guard let inner = store.schema.object(named: query.object) else {
                throw APIFailure.invalidType(query.object)
            }
            guard query.selectItems.count == 1, case .field = query.selectItems[0], query.orderBy.isEmpty else {
                throw APIFailure.malformedQuery("semi join sub-selects must select exactly one field")
            }
            try validate(query, object: inner)
        case .includes(let path, _, _):
            let field = try resolve(path, in: object).field
            guard field.type == .multipicklist else {
                throw APIFailure.malformedQuery("INCLUDES and EXCLUDES need a multi-select picklist: \(field.name)")
            }
        }
    }

    private func checkLiteral(_ literal: SOQLLiteral, for field: FieldSchema) throws(APIFailure) {
        let fits: Bool
        switch literal {
        case .null: fits = true
        case .string: fits = field.type.isText
        case .number: fits = field.type.isNumeric
        case .bool: fits = field.type == .boolean
        case .temporal: fits = field.type == .date || field.type == .datetime
        }
        guard fits else {
            throw APIFailure.malformedQuery(
                "value of filter criterion for field '\(field.name)' must be of type \(field.type.rawValue)")
        }
    }

    /// Evaluates a condition with three-valued logic; `nil` is unknown (a null compared).
    func evaluate(_ condition: SOQLCondition, record: Fields, object: ObjectSchema) throws(APIFailure) -> Bool? {
        switch condition {
        case .and(let items):
            var result: Bool? = true
            for item in items {
                let value = try evaluate(item, record: record, object: object)
                if value == false { return false }
                if value == nil { result = nil }
            }
            return result
        case .or(let items):
            var result: Bool? = false
            for item in items {
                let value = try evaluate(item, record: record, object: object)
                if value == true { return true }
                if value == nil { result = nil }
            }
            return result
        case .not(let inner):
            return try evaluate(inner, record: record, object: object).map { !$0 }
        default:
            return try evaluatePredicate(condition, record: record, object: object)
        }
    }

    private func evaluatePredicate(_ condition: SOQLCondition, record: Fields, object: ObjectSchema) throws(APIFailure)
        -> Bool?
    {
        switch condition {
        case .compare(let path, let op, let literal):
            let resolved = try resolve(path, in: object)
            return Self.compare(value(resolved, in: record), op: op, literal: literal, field: resolved.field)
        case .like(let path, let pattern):
            guard let text = value(try resolve(path, in: object), in: record).string else { return nil }
            return SOQLPattern(pattern).matches(text)
        case .within(let path, let values, let negated):
            let resolved = try resolve(path, in: object)
            let fieldValue = value(resolved, in: record)
            if fieldValue == .null {
                let listHasNull = values.contains { literal in
                    if case .null = literal { return true }
                    return false
                }
                return listHasNull ? !negated : nil
            }
            let found = values.contains {
                Self.compare(fieldValue, op: .equal, literal: $0, field: resolved.field) == true
            }
            return found != negated
        case .semiJoin(let path, let query, let negated):
            let resolved = try resolve(path, in: object)
            guard let text = value(resolved, in: record).string else { return nil }
            return try semiJoinValues(query).contains(text.uppercased()) != negated
        case .includes(let path, let values, let negated):
            guard let text = value(try resolve(path, in: object), in: record).string else { return nil }
            let selected = Set(text.split(separator: ";").map { $0.uppercased() })
            let found = values.contains { literal in
                literal.split(separator: ";").allSatisfy { selected.contains($0.uppercased()) }
            }
            return found != negated
        default:
            return nil
        }
    }

    /// The upper-cased values a semi-join sub-select yields.
    private func semiJoinValues(_ query: SOQLQuery) throws(APIFailure) -> Set<String> {
        guard let object = store.schema.object(named: query.object), case .field(let path) = query.selectItems.first
        else { return [] }
        let inner = SOQLEvaluator(store: store, apiVersion: apiVersion, includeDeleted: false)
        let resolved = try inner.resolve(path, in: object)
        let records = try inner.select(
            store.records(of: object.name, includeDeleted: false), object: object, query: query)
        return Set(records.compactMap { inner.value(resolved, in: $0).string?.uppercased() })
    }

    /// Compares a stored value with a literal; `nil` when the value is null (unknown).
    static func compare(_ value: JSONValue, op: SOQLOperator, literal: SOQLLiteral, field: FieldSchema) -> Bool? {
        if case .null = literal {
            switch op {
            case .equal: return value == .null
            case .notEqual: return value != .null
            default: return false
            }
        }
        if value == .null { return nil }
        if case .temporal(let lower, let upper, _) = literal {
            guard let instant = instant(value, field: field) else { return nil }
            switch op {
            case .equal: return lower <= instant && instant < upper
            case .notEqual: return !(lower <= instant && instant < upper)
            case .less: return instant < lower
            case .lessOrEqual: return instant < upper
            case .greater: return instant >= upper
            case .greaterOrEqual: return instant >= lower
            }
        }
        guard let order = order(value, literal: literal, field: field) else { return nil }
        switch op {
        case .equal: return order == 0
        case .notEqual: return order != 0
        case .less: return order < 0
        case .lessOrEqual: return order <= 0
        case .greater: return order > 0
        case .greaterOrEqual: return order >= 0
        }
    }

    /// -1, 0 or 1 comparing a non-temporal value with a literal.
    private static func order(_ value: JSONValue, literal: SOQLLiteral, field: FieldSchema) -> Int? {
        switch literal {
        case .string(let text):
            guard let stored = value.string else { return nil }
            var wanted = text.uppercased()
            if field.type == .id || field.type == .reference, let id = SalesforceID(text) {
                wanted = id.rawValue.uppercased()
            }
            let have = stored.uppercased()
            return have == wanted ? 0 : (have < wanted ? -1 : 1)
        case .number(let wanted):
            guard let have = value.number?.doubleValue else { return nil }
            return have == wanted ? 0 : (have < wanted ? -1 : 1)
        case .bool(let wanted):
            guard let have = value.bool else { return nil }
            return have == wanted ? 0 : 1
        case .null, .temporal:
            return nil
        }
    }

    /// A date or datetime value as epoch milliseconds (whole seconds).
    static func instant(_ value: JSONValue, field: FieldSchema) -> Int64? {
        guard let text = value.string else { return nil }
        let time = field.type == .date ? WallTime(iso8601: text + "T00:00:00Z") : WallTime(iso8601: text)
        return time.map { SOQLParser.floorToSecond($0.millisecondsSinceEpoch) }
    }
}
