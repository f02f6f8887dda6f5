import LosslessJSON
import SalesforceAPI

/// The records of a simulated org, by type, with creation order kept for deterministic query
/// results. A value type, so a composite `allOrNone` call can roll back by restoring a copy.
struct OrgStore: Sendable {
    typealias Fields = [String: JSONValue]

    struct Table: Sendable {
        var records: [String: Fields] = [:]
        /// Ids in creation order.
        var order: [String] = []
    }

    /// The most recent-items entries kept per type, as on a real org's MRU list.
    static let recentItemCountMax = 25

    var schema: OrgSchema
    var tables: [String: Table] = [:]
    /// The type of every id ever created (deleted records keep theirs).
    var typeByID: [String: String] = [:]
    /// Per type, recently written or admin-chosen ids, newest first.
    var recentItems: [String: [String]] = [:]
    var idCounters: [String: UInt64] = [:]
    /// The simulated API user, owner and creator of records.
    var userID = ""
    /// The briefcases assigned to the user, and the page size of their priming records.
    var briefcases: [Briefcase] = []
    /// The stand-ins for the org's Apex REST classes, by path.
    var apexRoutes: [String: ApexRoute] = [:]
    var primingPageSize = SimulatorData.primingPageSizeDefault

    init(schema: OrgSchema) {
        self.schema = schema
    }

    /// The record with an id (any case, 15 or 18 characters), deleted or not.
    func record(_ id: String) -> (object: ObjectSchema, fields: Fields)? {
        guard let canonical = SalesforceID(id)?.rawValue, let typeName = typeByID[canonical],
            let object = schema.object(named: typeName), let fields = tables[typeName]?.records[canonical]
        else { return nil }
        return (object, fields)
    }

    /// The live (not deleted) record with an id.
    func liveRecord(_ id: String) -> (object: ObjectSchema, fields: Fields)? {
        guard let found = record(id), !Self.isDeleted(found.fields) else { return nil }
        return found
    }

    static func isDeleted(_ fields: Fields) -> Bool {
        fields["IsDeleted"]?.bool == true
    }

    /// Records of a type in creation order.
    func records(of type: String, includeDeleted: Bool) -> [Fields] {
        guard let table = tables[type] else { return [] }
        return table.order.compactMap { id in
            guard let fields = table.records[id], includeDeleted || !Self.isDeleted(fields) else { return nil }
            return fields
        }
    }

    /// Mints a fresh id for a type: key prefix plus a per-prefix counter.
    mutating func mintID(for object: ObjectSchema) -> String {
        var counter = idCounters[object.keyPrefix, default: 0]
        while true {
            counter += 1
            let id = SalesforceID(keyPrefix: object.keyPrefix, counter: counter).rawValue
            if typeByID[id] == nil {
                idCounters[object.keyPrefix] = counter
                return id
            }
        }
    }

    /// Stores a record as given (fields already canonical and validated).
    mutating func insert(_ fields: Fields, id: String, type: String) {
        if tables[type]?.records[id] == nil { tables[type, default: Table()].order.append(id) }
        tables[type, default: Table()].records[id] = fields
        typeByID[id] = type
    }

    /// Moves an id to the front of its type's recent items.
    mutating func touchRecent(_ id: String, type: String) {
        var list = recentItems[type, default: []]
        list.removeAll { $0 == id }
        list.insert(id, at: 0)
        recentItems[type] = Array(list.prefix(Self.recentItemCountMax))
    }
}
