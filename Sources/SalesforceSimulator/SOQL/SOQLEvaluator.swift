import LosslessJSON
import SalesforceAPI

/// Runs a parsed SOQL query against an ``OrgStore``.
///
/// Semantics (wire reference §5.3 and docs/simulator.md): names resolve case-insensitively and
/// come out canonical; text compares without case; a comparison with a null value is unknown,
/// and unknown collapses to false at the top (three-valued logic); without ORDER BY rows come in
/// creation order; ties of an ORDER BY break by `Id` ascending so paging is stable.
struct SOQLEvaluator {
    typealias Fields = OrgStore.Fields

    /// A field path resolved against the schema.
    struct ResolvedPath {
        /// Lookup fields walked, in order (`AccountId` for `Account.Name` on Contact).
        var hops: [FieldSchema]
        var field: FieldSchema
        /// Canonical spelling of the path, relationship names then the field.
        var names: [String]
    }

    /// The most relationship hops in one field path, as on Salesforce (`A.B.C.D.E.Field`); the
    /// renderer recurses once per hop, so the bound also protects the stack.
    static let relationshipDepthMax = 5

    let store: OrgStore
    let apiVersion: String
    let includeDeleted: Bool

    /// Runs a query; returns the rendered rows (after OFFSET and LIMIT) and their count.
    ///
    /// - Parameter restrictedTo: When given, only records with these ids are considered (SOSL).
    func run(_ query: SOQLQuery, restrictedTo: Set<String>? = nil) throws(APIFailure) -> (
        rows: [JSONValue], totalSize: Int
    ) {
        guard let object = store.schema.object(named: query.object) else { throw APIFailure.invalidType(query.object) }
        try validate(query, object: object)
        var records = store.records(of: object.name, includeDeleted: includeDeleted)
        if let restrictedTo { records = records.filter { restrictedTo.contains($0["Id"]?.string ?? "") } }
        let selected = try select(records, object: object, query: query)
        if query.isCount { return ([], selected.count) }
        let childIndexes = try childIndexes(for: query, object: object)
        let rows = try selected.map { record throws(APIFailure) in
            try render(record, object: object, items: query.selectItems, childIndexes: childIndexes)
        }
        return (rows, rows.count)
    }

    /// Filters, sorts and slices records.
    func select(_ records: [Fields], object: ObjectSchema, query: SOQLQuery) throws(APIFailure) -> [Fields] {
        var matching: [Fields] = []
        for record in records {
            if let condition = query.condition {
                guard try evaluate(condition, record: record, object: object) == true else { continue }
            }
            matching.append(record)
        }
        if !query.orderBy.isEmpty { matching = try sorted(matching, object: object, by: query.orderBy) }
        let offset = query.offset ?? 0
        let limit = query.limit ?? Int.max
        return Array(matching.dropFirst(offset).prefix(limit))
    }

    // MARK: - Validation

    /// Checks names, literal types and limits before any record is read, so an error is
    /// reported even when no record would match.
    func validate(_ query: SOQLQuery, object: ObjectSchema) throws(APIFailure) {
        if let offset = query.offset, offset > SalesforceLimits.queryOffsetMax {
            throw APIFailure(
                errorCode: "NUMBER_OUTSIDE_VALID_RANGE",
                message: "Maximum SOQL offset allowed is \(SalesforceLimits.queryOffsetMax)")
        }
        var seen: Set<String> = []
        for item in query.selectItems {
            let key: String
            switch item {
            case .field(let path):
                key = try resolve(path, in: object).names.joined(separator: ".").lowercased()
            case .subquery(let subquery):
                let (child, _) = try childRelationship(subquery.object, of: object)
                try validate(subquery, object: child)
                key = "(" + subquery.object.lowercased()
            }
            guard seen.insert(key).inserted else {
                throw APIFailure.malformedQuery("duplicate field selected: \(key)")
            }
        }
        if let condition = query.condition { try check(condition, object: object) }
        for item in query.orderBy { _ = try resolve(item.path, in: object) }
    }

    func childRelationship(_ name: String, of object: ObjectSchema) throws(APIFailure) -> (ObjectSchema, FieldSchema) {
        guard let relationship = store.schema.childRelationship(name, of: object.name) else {
            throw APIFailure(
                errorCode: "INVALID_TYPE",
                message: "Didn't understand relationship '\(name)' in FROM part of query call. If you are attempting "
                    + "to use a custom relationship, be sure to append the '__r' after the custom relationship name.")
        }
        return relationship
    }

    /// Resolves `Field`, `Relationship.Field` (any depth) or `Object.Field` on `object`.
    func resolve(_ path: [String], in object: ObjectSchema) throws(APIFailure) -> ResolvedPath {
        var path = path
        if path.count > 1, path[0].lowercased() == object.name.lowercased(), object.reference(named: path[0]) == nil {
            path.removeFirst()
        }
        guard path.count <= Self.relationshipDepthMax + 1 else {
            throw APIFailure.malformedQuery(
                "SOQL statements cannot query more than \(Self.relationshipDepthMax) levels of relationships")
        }
        var current = object
        var hops: [FieldSchema] = []
        var names: [String] = []
        for segment in path.dropLast() {
            guard let hop = current.reference(named: segment), let relationship = hop.relationshipName,
                let target = hop.referenceTo.flatMap(store.schema.object(named:))
            else {
                throw APIFailure(
                    errorCode: "INVALID_FIELD",
                    message: "Didn't understand relationship '\(segment)' in field path. If you are attempting to use "
                        + "a custom relationship, be sure to append the '__r' after the custom relationship name.")
            }
            hops.append(hop)
            names.append(relationship)
            current = target
        }
        let last = path.last ?? ""
        guard let field = current.field(named: last) else {
            throw APIFailure.invalidQueryField(last, entity: current.name)
        }
        names.append(field.name)
        return ResolvedPath(hops: hops, field: field, names: names)
    }

    /// The value at a resolved path: `null` when a lookup on the way is empty or deleted.
    func value(_ path: ResolvedPath, in record: Fields) -> JSONValue {
        var fields = record
        for hop in path.hops {
            guard let id = fields[hop.name]?.string, let target = store.liveRecord(id) else { return .null }
            fields = target.fields
        }
        return fields[path.field.name] ?? .null
    }
}
