import LosslessJSON

/// One object type of a briefcase sync down (an element of the target's `infos`): which
/// fields of its records are fetched and which soup they go to.
///
/// ```swift
/// let accounts = BriefcaseObjectInfo(sobjectType: "Account", fieldlist: ["Name"], soupName: "accounts")
/// ```
public struct BriefcaseObjectInfo: Hashable, Sendable {
    /// The sObject type, such as `Account`.
    public var sobjectType: String
    /// The fields fetched; the id and modification date fields are added when missing.
    public var fieldlist: [String]
    /// The soup the records of this type go to.
    public var soupName: String
    /// The id field, `Id` by default.
    public var idFieldName: String
    /// The modification date field, `LastModifiedDate` by default.
    public var modificationDateFieldName: String

    /// Creates an info with Mobile SDK's default field names.
    public init(
        sobjectType: String, fieldlist: [String], soupName: String,
        idFieldName: String = SyncDownTargetDescriptor.idFieldNameDefault,
        modificationDateFieldName: String = SyncDownTargetDescriptor.modificationDateFieldNameDefault
    ) {
        self.sobjectType = sobjectType
        self.fieldlist = fieldlist
        self.soupName = soupName
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
    }

    /// The fields a retrieve asks for: the field list, then the id and modification date
    /// fields when it lacks them (the watermark needs the date).
    public var retrievedFields: [String] {
        var fields = fieldlist
        for field in [idFieldName, modificationDateFieldName] where !fields.contains(field) { fields.append(field) }
        return fields
    }

    /// Reads one element of `infos`.
    init(_ fields: JSONFields) throws(SyncError) {
        self.init(
            sobjectType: try ParentChildrenRelationship.typeName(fields, "sobjectType"),
            fieldlist: try fields.stringArray("fieldlist"), soupName: try fields.string("soupName"),
            idFieldName: try ParentChildrenRelationship.fieldName(fields, MobileSDKKey.idFieldName)
                ?? SyncDownTargetDescriptor.idFieldNameDefault,
            modificationDateFieldName: try ParentChildrenRelationship.fieldName(fields, "modificationDateFieldName")
                ?? SyncDownTargetDescriptor.modificationDateFieldNameDefault)
    }

    /// The element of `infos` in Mobile SDK's JSON.
    var json: JSONValue {
        [
            "sobjectType": .string(sobjectType), "fieldlist": .array(fieldlist.map(JSONValue.string)),
            "soupName": .string(soupName), MobileSDKKey.idFieldName: .string(idFieldName),
            "modificationDateFieldName": .string(modificationDateFieldName),
        ]
    }
}
