/// One simulated sObject type: its name, key prefix and fields.
public struct ObjectSchema: Sendable, Hashable {
    /// The API name, canonical spelling (`Account`).
    public var name: String
    /// The 3-character id prefix (`001`).
    public var keyPrefix: String
    /// The fields, in describe order.
    public var fields: [FieldSchema]

    /// Creates a type; the standard audit fields are added when missing.
    public init(name: String, keyPrefix: String, fields: [FieldSchema]) {
        self.name = name
        self.keyPrefix = keyPrefix
        var all = Self.auditFields
        for field in fields {
            if let index = all.firstIndex(where: { $0.name.lowercased() == field.name.lowercased() }) {
                all[index] = field
            } else {
                all.append(field)
            }
        }
        self.fields = all
    }

    /// The fields every record has, maintained by the server.
    static let auditFields: [FieldSchema] = [
        FieldSchema(name: "Id", type: .id, label: "Record ID", isSystem: true),
        FieldSchema(name: "IsDeleted", type: .boolean, label: "Deleted", isSystem: true),
        FieldSchema(name: "CreatedDate", type: .datetime, label: "Created Date", isSystem: true),
        FieldSchema(
            name: "CreatedById", type: .reference, label: "Created By ID", isSystem: true, referenceTo: "User",
            relationshipName: "CreatedBy"),
        FieldSchema(name: "LastModifiedDate", type: .datetime, label: "Last Modified Date", isSystem: true),
        FieldSchema(
            name: "LastModifiedById", type: .reference, label: "Last Modified By ID", isSystem: true,
            referenceTo: "User", relationshipName: "LastModifiedBy"),
        FieldSchema(name: "SystemModstamp", type: .datetime, label: "System Modstamp", isSystem: true),
    ]

    /// Finds a field by name, ignoring case.
    public func field(named name: String) -> FieldSchema? {
        let lowered = name.lowercased()
        return fields.first { $0.name.lowercased() == lowered }
    }

    /// Finds a reference field by its relationship name (`Account` → `AccountId`), ignoring case.
    func reference(named relationship: String) -> FieldSchema? {
        let lowered = relationship.lowercased()
        return fields.first { $0.relationshipName?.lowercased() == lowered }
    }

    /// Whether the type has an `OwnerId` lookup that creates fill in.
    var hasOwner: Bool { field(named: "OwnerId") != nil }

    /// The fields SOSL `IN NAME FIELDS` searches.
    var nameFields: [FieldSchema] {
        fields.filter { ["name", "firstname", "lastname"].contains($0.name.lowercased()) }
    }
}
