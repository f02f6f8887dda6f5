import Determinism
import LosslessJSON
import SalesforceAPI

extension OrgStore {
    /// Validates an id from a URL or body: `MALFORMED_ID` unless it is a well-formed id.
    static func canonicalID(_ text: String) throws(APIFailure) -> String {
        guard let id = SalesforceID(text) else { throw APIFailure.malformedID(text) }
        return id.rawValue
    }

    /// Creates a record and returns its id.
    mutating func create(_ object: ObjectSchema, body: Fields, now: WallTime) throws(APIFailure) -> String {
        if body.keys.contains(where: { $0.lowercased() == "id" }) {
            throw APIFailure(
                errorCode: "INVALID_FIELD", message: "The Id field should not be specified in the sobject data.")
        }
        var fields = try validated(object, body: body, existing: nil)
        let id = mintID(for: object)
        let stamp = JSONValue.string(now.salesforceFormat)
        fields["Id"] = .string(id)
        fields["IsDeleted"] = false
        fields["CreatedDate"] = stamp
        fields["CreatedById"] = .string(userID)
        fields["LastModifiedDate"] = stamp
        fields["LastModifiedById"] = .string(userID)
        fields["SystemModstamp"] = stamp
        if object.hasOwner, fields["OwnerId"] == nil || fields["OwnerId"] == .null {
            fields["OwnerId"] = .string(userID)
        }
        Self.computeDerived(object, &fields)
        insert(fields, id: id, type: object.name)
        touchRecent(id, type: object.name)
        return id
    }

    /// Updates a live record; 404 `ENTITY_IS_DELETED` / `NOT_FOUND` otherwise.
    mutating func update(_ object: ObjectSchema, id rawID: String, body: Fields, now: WallTime) throws(APIFailure) {
        let id = try Self.canonicalID(rawID)
        let existing = try liveFields(object, id: id)
        var body = body
        if let given = body.first(where: { $0.key.lowercased() == "id" }) {
            // Collection updates carry the Id in the body; it must name this record.
            guard let text = given.value.string, SalesforceID(text)?.rawValue == id else {
                throw APIFailure.malformedID(given.value.string ?? "\(given.value)")
            }
            body[given.key] = nil
        }
        var fields = existing
        for (name, value) in try validated(object, body: body, existing: existing) { fields[name] = value }
        let stamp = JSONValue.string(now.salesforceFormat)
        fields["LastModifiedDate"] = stamp
        fields["LastModifiedById"] = .string(userID)
        fields["SystemModstamp"] = stamp
        Self.computeDerived(object, &fields)
        insert(fields, id: id, type: object.name)
        touchRecent(id, type: object.name)
    }

    /// Moves a live record to the recycle bin, with the live records whose master-detail
    /// reference (`cascadeDelete`) points at it, as Salesforce deletes a master's details.
    mutating func delete(_ object: ObjectSchema, id rawID: String, now: WallTime) throws(APIFailure) {
        let id = try Self.canonicalID(rawID)
        var fields = try liveFields(object, id: id)
        let stamp = JSONValue.string(now.salesforceFormat)
        fields["IsDeleted"] = true
        fields["LastModifiedDate"] = stamp
        fields["SystemModstamp"] = stamp
        insert(fields, id: id, type: object.name)
        recentItems[object.name]?.removeAll { $0 == id }
        for detail in schema.objects {
            for field in detail.fields where field.cascadeDelete && field.referenceTo == object.name {
                for record in records(of: detail.name, includeDeleted: false)
                where record[field.name]?.string.flatMap(SalesforceID.init)?.rawValue == id {
                    guard let detailId = record["Id"]?.string else { continue }
                    try delete(detail, id: detailId, now: now)
                }
            }
        }
    }

    /// The fields of a live record of `object`: 404 `ENTITY_IS_DELETED` when it is in the recycle
    /// bin, 404 `NOT_FOUND` when it never existed (decision 0101).
    func liveFields(_ object: ObjectSchema, id: String) throws(APIFailure) -> Fields {
        guard typeByID[id] == object.name, let fields = tables[object.name]?.records[id] else {
            throw APIFailure.notFound()
        }
        guard !Self.isDeleted(fields) else { throw APIFailure.entityIsDeleted() }
        return fields
    }

    /// Fields derived from others, as Salesforce computes `Contact.Name`.
    static func computeDerived(_ object: ObjectSchema, _ fields: inout Fields) {
        guard object.name == "Contact" else { return }
        let parts = [fields["FirstName"]?.string, fields["LastName"]?.string].compactMap { $0 }
        fields["Name"] = parts.isEmpty ? .null : .string(parts.joined(separator: " "))
    }

    /// Checks a write body against the schema and returns it with canonical names and values.
    func validated(_ object: ObjectSchema, body: Fields, existing: Fields?) throws(APIFailure) -> Fields {
        var result: Fields = [:]
        for (name, value) in body.sorted(by: { $0.key < $1.key }) where name != "attributes" {
            guard let field = object.field(named: name) else {
                throw APIFailure(
                    errorCode: "INVALID_FIELD", message: "No such column '\(name)' on sobject of type \(object.name)")
            }
            guard !field.isSystem else {
                throw APIFailure(
                    errorCode: "INVALID_FIELD_FOR_INSERT_UPDATE",
                    message: "Unable to create/update fields: \(field.name). Please check the security settings of "
                        + "this field and verify that it is read/write for your profile or permission set.",
                    fields: [field.name])
            }
            result[field.name] = try normalizedValue(value, field: field, object: object)
        }
        var missing: [String] = []
        for field in object.fields where field.isRequired {
            let value = result[field.name] ?? existing?[field.name] ?? .null
            if value == .null { missing.append(field.name) }
        }
        if !missing.isEmpty {
            throw APIFailure(
                errorCode: "REQUIRED_FIELD_MISSING",
                message: "Required fields are missing: [\(missing.joined(separator: ", "))]",
                fields: missing)
        }
        try checkUnique(object, values: result, excluding: existing?["Id"]?.string)
        return result
    }

    /// External-id fields hold unique values among live records.
    func checkUnique(_ object: ObjectSchema, values: Fields, excluding id: String?) throws(APIFailure) {
        for field in object.fields where field.isExternalID {
            guard let value = values[field.name]?.string else { continue }
            for other in records(of: object.name, includeDeleted: false)
            where other[field.name]?.string?.lowercased() == value.lowercased() && other["Id"]?.string != id {
                throw APIFailure(
                    errorCode: "DUPLICATE_VALUE",
                    message: "duplicate value found: \(field.name) duplicates value on record with id: "
                        + (other["Id"]?.string ?? ""),
                    fields: [field.name])
            }
        }
    }
}
