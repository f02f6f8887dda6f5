import LosslessJSON
import SalesforceAPI

extension SimulatorState {
    /// Records one `POST /composite/tree` call may create, parents and children together.
    static let treeRecordCountMax = 200

    /// `POST /composite/tree/<Type>`: creates parent records with nested child records in one
    /// transaction; any failure rolls all back and reports only the failing references.
    mutating func compositeTree(_ request: DataRequest, type: String) throws(APIFailure) -> RouteResult {
        guard let object = store.schema.object(named: type) else { throw APIFailure.notFound() }
        guard let records = request.body?["records"]?.array else {
            throw APIFailure.jsonParser("The request body must have a records array.")
        }
        guard Self.treeRecordCount(records) <= Self.treeRecordCountMax else {
            throw Self.overLimit(Self.treeRecordCountMax)
        }
        let saved = store
        var results: [JSONValue] = []
        var failures: [JSONValue] = []
        for record in records {
            createTreeRecord(record, object: object, parent: nil, results: &results, failures: &failures)
        }
        guard failures.isEmpty else {
            store = saved
            return .json(["hasErrors": true, "results": .array(failures)], status: 400)
        }
        return .json(["hasErrors": false, "results": .array(results)], status: 201)
    }

    static func treeRecordCount(_ records: [JSONValue]) -> Int {
        records.reduce(0) { count, record in
            let children = (record.object ?? [:]).values.compactMap { $0["records"]?.array }
            return count + 1 + children.map(treeRecordCount).reduce(0, +)
        }
    }

    /// Creates one record, then its children with their lookup pointing at it.
    private mutating func createTreeRecord(
        _ record: JSONValue, object: ObjectSchema, parent: (id: String, field: FieldSchema)?,
        results: inout [JSONValue], failures: inout [JSONValue]
    ) {
        let reference = record["attributes"]?["referenceId"]?.string ?? ""
        var fields: OrgStore.Fields = [:]
        var children: [(ObjectSchema, FieldSchema, [JSONValue])] = []
        for (name, value) in record.object ?? [:] where name != "attributes" {
            if let nested = value["records"]?.array,
                let relationship = store.schema.childRelationship(name, of: object.name)
            {
                children.append((relationship.child, relationship.field, nested))
            } else {
                fields[name] = value
            }
        }
        if let parent { fields[parent.field.name] = .string(parent.id) }
        do throws(APIFailure) {
            let id = try store.create(object, body: fields, now: writeTime())
            results.append(["referenceId": .string(reference), "id": .string(id)])
            for (child, field, nested) in children {
                for childRecord in nested {
                    createTreeRecord(
                        childRecord, object: child, parent: (id, field), results: &results, failures: &failures)
                }
            }
        } catch {
            failures.append(["referenceId": .string(reference), "errors": [error.detail(codeKey: "statusCode")]])
        }
    }
}
