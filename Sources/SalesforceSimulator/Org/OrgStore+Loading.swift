import Determinism
import LosslessJSON
import SalesforceAPI

extension OrgStore {
    /// Builds a store from data-file contents; records keep given ids and audit fields and get
    /// the rest from `now`.
    static func load(_ data: SimulatorData, now: WallTime) throws -> OrgStore {
        var store = OrgStore(schema: data.schema)
        let stamp = JSONValue.string(now.salesforceFormat)
        if let user = store.schema.object(named: "User") {
            // The API user every create is attributed to; a data file may bring its own users too.
            let id = store.mintID(for: user)
            store.userID = id
            store.insert(
                [
                    "Id": .string(id), "Name": "Simulator User", "Username": "simulator@example.com",
                    "Email": "simulator@example.com", "IsActive": true, "IsDeleted": false, "CreatedDate": stamp,
                    "CreatedById": .string(id), "LastModifiedDate": stamp, "LastModifiedById": .string(id),
                    "SystemModstamp": stamp,
                ], id: id, type: user.name)
        }
        for (typeName, given) in data.records {
            guard let object = store.schema.object(named: typeName) else {
                throw SimulatorError(code: .invalidData, message: "Unknown type \(typeName).")
            }
            var fields = try store.loadedFields(object, given)
            let id: String
            if let text = fields["Id"]?.string {
                guard let canonical = SalesforceID(text)?.rawValue else {
                    throw SimulatorError(code: .invalidData, message: "Malformed id \(text) in \(typeName).")
                }
                id = canonical
            } else {
                id = store.mintID(for: object)
            }
            fields["Id"] = .string(id)
            for (name, value) in [
                ("IsDeleted", JSONValue.bool(false)), ("CreatedDate", stamp), ("CreatedById", .string(store.userID)),
                ("LastModifiedDate", stamp), ("LastModifiedById", .string(store.userID)), ("SystemModstamp", stamp),
            ] where fields[name] == nil {
                fields[name] = value
            }
            if object.hasOwner && fields["OwnerId"] == nil { fields["OwnerId"] = .string(store.userID) }
            computeDerived(object, &fields)
            store.insert(fields, id: id, type: object.name)
        }
        for (typeName, ids) in data.recentItems {
            guard let object = store.schema.object(named: typeName) else { continue }
            store.recentItems[object.name] = Array(
                ids.compactMap { SalesforceID($0)?.rawValue }.prefix(recentItemCountMax))
        }
        store.briefcases = data.briefcases
        store.apexRoutes = Dictionary(data.apexRoutes.map { ($0.path, $0) }) { _, last in last }
        store.primingPageSize = data.primingPageSize
        return store
    }

    /// Canonical names and stored values for a loaded record; lookups are only checked for
    /// form, because their targets may load later.
    private func loadedFields(_ object: ObjectSchema, _ given: Fields) throws -> Fields {
        var fields: Fields = [:]
        for (name, value) in given where name != "attributes" {
            guard let field = object.field(named: name) else {
                throw SimulatorError(code: .invalidData, message: "No field \(name) on \(object.name).")
            }
            do throws(APIFailure) {
                if field.type == .reference || field.type == .id || field.isSystem {
                    if let text = value.string, field.type == .reference || field.type == .id {
                        guard let id = SalesforceID(text) else { throw APIFailure.malformedID(text) }
                        fields[field.name] = .string(id.rawValue)
                    } else {
                        fields[field.name] = value
                    }
                } else {
                    fields[field.name] = try normalizedValue(value, field: field, object: object)
                }
            } catch {
                throw SimulatorError(
                    code: .invalidData, message: "\(object.name).\(field.name): \(error.message)", cause: error)
            }
        }
        return fields
    }
}
