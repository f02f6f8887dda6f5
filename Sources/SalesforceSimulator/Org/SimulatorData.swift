public import Foundation
public import LosslessJSON

/// The initial contents of a simulated org: schema, records and recent items.
///
/// The JSON data-file format is documented in docs/simulator.md:
///
/// ```json
/// {"objects": [{"name": "Widget__c", "keyPrefix": "a01",
///               "fields": [{"name": "Name", "type": "string", "length": 80, "required": true}]}],
///  "records": {"Account": [{"Id": "001000000000001AAA", "Name": "Acme"}]},
///  "recentItems": {"Account": ["001000000000001AAA"]}}
/// ```
///
/// `objects` is optional and adds to (or replaces) the built-in User, Account and Contact types;
/// a type named only under `records` gets a schema inferred from its values.
public struct SimulatorData: Sendable {
    /// The types.
    public var schema: OrgSchema
    /// Records per type name, in creation order; field names as written in the file.
    public var records: [(type: String, fields: [String: JSONValue])]
    /// Recent-items lists per type, newest first.
    public var recentItems: [String: [String]]
    /// The briefcases whose records `connect/briefcase/priming-records` serves.
    public var briefcases: [Briefcase]
    /// The most record ids one priming-records page holds before a `relayToken` continues it.
    public var primingPageSize: Int
    /// The stand-ins for the org's Apex REST classes (`/services/apexrest/…`).
    public var apexRoutes: [ApexRoute]

    /// The default ``primingPageSize``: the largest retrieve a client makes of the ids.
    public static let primingPageSizeDefault = 2000

    /// Creates data.
    public init(
        schema: OrgSchema = .standard, records: [(type: String, fields: [String: JSONValue])] = [],
        recentItems: [String: [String]] = [:], briefcases: [Briefcase] = [],
        primingPageSize: Int = SimulatorData.primingPageSizeDefault, apexRoutes: [ApexRoute] = []
    ) {
        self.schema = schema
        self.records = records
        self.recentItems = recentItems
        self.briefcases = briefcases
        self.primingPageSize = primingPageSize
        self.apexRoutes = apexRoutes
    }

    /// An org with the standard types and no records.
    public static let empty = SimulatorData()

    /// Reads a data file.
    ///
    /// - Throws: ``SimulatorError/Code/invalidData`` when the file cannot be read or parsed.
    public static func load(contentsOf url: URL) throws -> SimulatorData {
        let bytes: Data
        do {
            bytes = try Data(contentsOf: url)
        } catch {
            throw SimulatorError(code: .invalidData, message: "Cannot read \(url.path): \(error)", cause: error)
        }
        return try SimulatorData(bytes: bytes)
    }

    /// The demo org shipped with the module: Accounts and Contacts (see ``DemoOrg``).
    public static func demo() throws -> SimulatorData {
        guard let url = Bundle.module.url(forResource: "demo-org", withExtension: "json") else {
            throw SimulatorError(code: .invalidData, message: "The demo-org.json resource is missing.")
        }
        return try load(contentsOf: url)
    }

    /// Parses data-file bytes.
    public init(bytes: some Collection<UInt8>) throws {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: bytes)
        } catch {
            throw SimulatorError(code: .invalidData, message: "The data file is not JSON: \(error)", cause: error)
        }
        try self.init(json: json)
    }

    /// Reads the data-file JSON.
    public init(json: JSONValue) throws {
        guard case .object = json else {
            throw SimulatorError(code: .invalidData, message: "The data file must be an object.")
        }
        var schema = OrgSchema.standard
        for object in json["objects"]?.array ?? [] { schema.add(try Self.objectSchema(object)) }
        var records: [(type: String, fields: [String: JSONValue])] = []
        // Types load in file order; within the standard types, parents before children so
        // lookups resolve: User, Account, Contact, then the rest.
        let byType = json["records"]?.object ?? [:]
        let standardOrder = ["User", "Account", "Contact"]
        let typeNames =
            standardOrder.filter { byType[$0] != nil } + byType.keys.filter { !standardOrder.contains($0) }.sorted()
        for typeName in typeNames {
            guard let list = byType[typeName]?.array else {
                throw SimulatorError(code: .invalidData, message: "records.\(typeName) must be an array.")
            }
            if schema.object(named: typeName) == nil { schema.add(Self.inferredSchema(typeName, list, schema: schema)) }
            for record in list {
                guard let fields = record.object else {
                    throw SimulatorError(code: .invalidData, message: "A \(typeName) record is not an object.")
                }
                records.append((typeName, fields))
            }
        }
        var recentItems: [String: [String]] = [:]
        for (typeName, ids) in json["recentItems"]?.object ?? [:] {
            recentItems[typeName] = ids.array?.compactMap(\.string) ?? []
        }
        let briefcases = try (json["briefcases"]?.array ?? []).map(Briefcase.init(json:))
        let pageSize = json["primingPageSize"]?.number?.int64Value.map { Int(clamping: $0) }
        guard (pageSize ?? 1) >= 1 else {
            throw SimulatorError(code: .invalidData, message: "primingPageSize must be at least 1.")
        }
        self.init(
            schema: schema, records: records, recentItems: recentItems, briefcases: briefcases,
            primingPageSize: pageSize ?? Self.primingPageSizeDefault,
            apexRoutes: try (json["apexRoutes"]?.array ?? []).map(ApexRoute.init(json:)))
    }

    static func objectSchema(_ json: JSONValue) throws -> ObjectSchema {
        guard let name = json["name"]?.string, let prefix = json["keyPrefix"]?.string, prefix.count == 3 else {
            throw SimulatorError(code: .invalidData, message: "Each object needs a name and a 3-character keyPrefix.")
        }
        var fields: [FieldSchema] = []
        for field in json["fields"]?.array ?? [] {
            guard let fieldName = field["name"]?.string,
                let type = FieldSchema.FieldType(rawValue: field["type"]?.string ?? "")
            else {
                throw SimulatorError(code: .invalidData, message: "A field of \(name) lacks a name or a known type.")
            }
            fields.append(
                FieldSchema(
                    name: fieldName, type: type, label: field["label"]?.string,
                    length: field["length"]?.number?.int64Value.map(Int.init),
                    isRequired: field["required"]?.bool ?? false, isExternalID: field["externalId"]?.bool ?? false,
                    referenceTo: field["referenceTo"]?.string, relationshipName: field["relationshipName"]?.string,
                    childRelationshipName: field["childRelationshipName"]?.string,
                    cascadeDelete: field["cascadeDelete"]?.bool ?? false))
        }
        return ObjectSchema(name: name, keyPrefix: prefix, fields: fields)
    }

    /// A schema guessed from values: strings, numbers and booleans; a fresh `aNN` key prefix.
    static func inferredSchema(_ name: String, _ records: [JSONValue], schema: OrgSchema) -> ObjectSchema {
        var fields: [String: FieldSchema] = [:]
        for record in records {
            for (field, value) in record.object ?? [:] where fields[field] == nil && field != "attributes" {
                switch value {
                case .number: fields[field] = FieldSchema(name: field, type: .double)
                case .bool: fields[field] = FieldSchema(name: field, type: .boolean)
                case .string, .null: fields[field] = FieldSchema(name: field, type: .string, length: 255)
                default: continue
                }
            }
        }
        var index = 0
        var prefix = "a00"
        while schema.object(keyPrefix: prefix) != nil {
            index += 1
            prefix = "a" + String(format: "%02d", index % 100)
        }
        return ObjectSchema(name: name, keyPrefix: prefix, fields: fields.values.sorted { $0.name < $1.name })
    }
}
