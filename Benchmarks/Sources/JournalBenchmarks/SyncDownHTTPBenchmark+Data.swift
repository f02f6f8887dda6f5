import BenchmarkSupport
import Determinism
import LosslessJSON
import SalesforceSimulator

// The simulator's org for each shape, and the SOQL query that syncs it down.

extension SyncDownHTTPBenchmark {
    /// The simulator's Accounts, `recordCount` of ``shape``, the query the sync down runs and how
    /// many fields it selects.
    func simulatorData() -> (data: SimulatorData, query: String, fieldCount: Int) {
        switch shape {
        case .lorem: (loremData(), "SELECT Name, AnnualRevenue, Industry, Description FROM Account", 4)
        case .org: orgData()
        }
    }

    /// The ~1 KB Accounts of every figure before issue 48, byte for byte.
    private func loremData() -> SimulatorData {
        let description = String(repeating: "lorem ipsum dolor sit amet ", count: 30)
        var generator = SplitMix64(seed: 7)
        let records = (0..<recordCount).map { index -> (type: String, fields: [String: JSONValue]) in
            let modified = WallTime(millisecondsSinceEpoch: 1_600_000_000_000 + Int64(index) * 1000)
            return (
                type: "Account",
                fields: [
                    "Name": .string("Account \(UInt64.random(in: 0..<1_000_000_000, using: &generator))"),
                    "AnnualRevenue": .number(JSONNumber(Int64.random(in: 0..<10_000_000, using: &generator))),
                    "Industry": .string(["Energy", "Retail", "Banking", "Media"][index & 3]),
                    "Description": .string(description), "LastModifiedDate": .string(modified.salesforceFormat),
                ]
            )
        }
        return SimulatorData(records: records)
    }

    /// ``OrgRecords``' Accounts, their own ids kept, under a schema of every field they carry,
    /// and a query that selects all of those fields, as an app syncing whole records writes it.
    ///
    /// Each `LastModifiedDate` grows with the index, as with `lorem`, so the pages' watermarks
    /// advance as in an org synced down for the first time.
    private func orgData() -> (data: SimulatorData, query: String, fieldCount: Int) {
        var generator = SplitMix64(seed: 7)
        let records = (0..<recordCount).map { number -> [String: JSONValue] in
            var fields = OrgRecords.record(OrgRecords.accountIndex(number), using: &generator).object ?? [:]
            // The REST API's envelope, not a field: the simulator writes its own.
            fields["attributes"] = nil
            fields["LastModifiedDate"] = .string(
                WallTime(millisecondsSinceEpoch: 1_600_000_000_000 + Int64(number) * 1000).salesforceFormat)
            return fields
        }
        let account = Self.accountSchema(records)
        var schema = OrgSchema.standard
        schema.add(account)
        let data = SimulatorData(schema: schema, records: records.map { (type: account.name, fields: $0) })
        let fieldNames = account.fields.map(\.name)
        return (data, "SELECT \(fieldNames.joined(separator: ", ")) FROM Account", fieldNames.count)
    }

    /// An Account type whose fields are those `records` carry, typed from their values: the
    /// simulator rejects a field its schema lacks, and the standard Account has a dozen of the
    /// org shape's sixty (and a picklist `Rating` where the shape has a number).
    ///
    /// Strings and nulls become text without a length limit (a description runs to ~2,000
    /// characters), numbers doubles and booleans checkboxes; the audit fields keep the types
    /// every ``ObjectSchema`` gives them (the `Id`, the dates, the user lookups), so those are
    /// checked and sorted as an org's are.
    private static func accountSchema(_ records: [[String: JSONValue]]) -> ObjectSchema {
        // What every type has already, from an empty one: the audit fields keep their own types.
        let auditFields = Set(ObjectSchema(name: "Account", keyPrefix: "001", fields: []).fields.map(\.name))
        var types: [String: FieldSchema.FieldType] = [:]
        for record in records {
            for (name, value) in record where !auditFields.contains(name) {
                switch value {
                case .number: types[name] = .double
                case .bool: types[name] = .boolean
                // A null says nothing of the type: another record's value decides, text if none does.
                case .null: types[name] = types[name] ?? .string
                default: types[name] = .string
                }
            }
        }
        let fields = types.keys.sorted().map { FieldSchema(name: $0, type: types[$0] ?? .string) }
        return ObjectSchema(name: "Account", keyPrefix: "001", fields: fields)
    }
}
