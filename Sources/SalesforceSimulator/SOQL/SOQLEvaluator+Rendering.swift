import LosslessJSON
import SalesforceAPI

extension SOQLEvaluator {
    /// Children of each parent for every sub-query, keyed by sub-query relationship (lower case)
    /// then parent id, built once per query so rendering stays linear.
    typealias ChildIndexes = [String: [String: [Fields]]]

    func childIndexes(for query: SOQLQuery, object: ObjectSchema) throws(APIFailure) -> ChildIndexes {
        var indexes: ChildIndexes = [:]
        for case .subquery(let subquery) in query.selectItems {
            let (child, lookup) = try childRelationship(subquery.object, of: object)
            var byParent: [String: [Fields]] = [:]
            for record in store.records(of: child.name, includeDeleted: includeDeleted) {
                guard let parent = record[lookup.name]?.string else { continue }
                byParent[parent, default: []].append(record)
            }
            indexes[subquery.object.lowercased()] = byParent
        }
        return indexes
    }

    /// Sorts by the ORDER BY keys; nulls first unless `NULLS LAST` (DESC does not move them,
    /// decision 0102); ties by `Id` ascending.
    func sorted(_ records: [Fields], object: ObjectSchema, by items: [SOQLOrderItem]) throws(APIFailure) -> [Fields] {
        var paths: [ResolvedPath] = []
        for item in items { paths.append(try resolve(item.path, in: object)) }
        let keyed = records.map { record in (record, paths.map { value($0, in: record) }) }
        return keyed.sorted { left, right in
            for (index, item) in items.enumerated() {
                let order = Self.sortOrder(left.1[index], right.1[index], field: paths[index].field, item: item)
                if order != 0 { return order < 0 }
            }
            return (left.0["Id"]?.string ?? "") < (right.0["Id"]?.string ?? "")
        }.map(\.0)
    }

    private static func sortOrder(_ left: JSONValue, _ right: JSONValue, field: FieldSchema, item: SOQLOrderItem) -> Int
    {
        switch (left == .null, right == .null) {
        case (true, true): return 0
        case (true, false): return item.nullsLast ? 1 : -1
        case (false, true): return item.nullsLast ? -1 : 1
        case (false, false):
            let order = compareValues(left, right, field: field)
            return item.descending ? -order : order
        }
    }

    private static func compareValues(_ left: JSONValue, _ right: JSONValue, field: FieldSchema) -> Int {
        if field.type.isNumeric, let lhs = left.number?.doubleValue, let rhs = right.number?.doubleValue {
            return lhs == rhs ? 0 : (lhs < rhs ? -1 : 1)
        }
        if field.type == .boolean, let lhs = left.bool, let rhs = right.bool {
            return lhs == rhs ? 0 : (!lhs ? -1 : 1)
        }
        if field.type == .date || field.type == .datetime, let lhs = instant(left, field: field),
            let rhs = instant(right, field: field)
        {
            return lhs == rhs ? 0 : (lhs < rhs ? -1 : 1)
        }
        // Salesforce sorts text without regard to case.
        let lhs = (left.string ?? left.serializedString).uppercased()
        let rhs = (right.string ?? right.serializedString).uppercased()
        return lhs == rhs ? 0 : (lhs < rhs ? -1 : 1)
    }

    /// The `attributes` object every record starts with.
    func attributes(_ object: ObjectSchema, id: String) -> JSONValue {
        ["type": .string(object.name), "url": .string("/services/data/\(apiVersion)/sobjects/\(object.name)/\(id)")]
    }

    /// Renders one record with the selected fields, parent objects and child sub-queries.
    func render(_ record: Fields, object: ObjectSchema, items: [SOQLQuery.SelectItem], childIndexes: ChildIndexes)
        throws(APIFailure) -> JSONValue
    {
        var output: [String: JSONValue] = ["attributes": attributes(object, id: record["Id"]?.string ?? "")]
        var parents: [String: (hop: FieldSchema, paths: [[String]])] = [:]
        var parentOrder: [String] = []
        for item in items {
            switch item {
            case .field(let path):
                let resolved = try resolve(path, in: object)
                guard let hop = resolved.hops.first, let relationship = hop.relationshipName else {
                    output[resolved.field.name] = record[resolved.field.name] ?? .null
                    continue
                }
                if parents[relationship] == nil { parentOrder.append(relationship) }
                parents[relationship, default: (hop, [])].paths.append(Array(resolved.names.dropFirst()))
            case .subquery(let subquery):
                output[try childRelationship(subquery.object, of: object).1.childRelationshipName ?? subquery.object] =
                    try renderChildren(subquery, parent: record, object: object, childIndexes: childIndexes)
            }
        }
        for relationship in parentOrder {
            guard let (hop, paths) = parents[relationship] else { continue }
            guard let id = record[hop.name]?.string, let target = store.liveRecord(id) else {
                output[relationship] = .null
                continue
            }
            output[relationship] = try render(
                target.fields, object: target.object, items: paths.map { .field($0) }, childIndexes: [:])
        }
        return .object(output)
    }

    /// A sub-query's result for one parent: `{totalSize, done, records}`, or `null` when the
    /// parent has no matching children (decision 0101).
    private func renderChildren(
        _ subquery: SOQLQuery, parent: Fields, object: ObjectSchema, childIndexes: ChildIndexes
    ) throws(APIFailure) -> JSONValue {
        let (child, _) = try childRelationship(subquery.object, of: object)
        let candidates = childIndexes[subquery.object.lowercased()]?[parent["Id"]?.string ?? ""] ?? []
        let selected = try select(candidates, object: child, query: subquery)
        guard !selected.isEmpty else { return .null }
        var rows: [JSONValue] = []
        for record in selected {
            rows.append(try render(record, object: child, items: subquery.selectItems, childIndexes: [:]))
        }
        return ["totalSize": .number(JSONNumber(Int64(rows.count))), "done": true, "records": .array(rows)]
    }
}
