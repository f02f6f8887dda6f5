/// One field of a simulated sObject type.
public struct FieldSchema: Sendable, Hashable {
    /// Field data types, named as in a Salesforce describe.
    public enum FieldType: String, Sendable, Hashable, CaseIterable {
        /// Text types, compared without regard to case; `reference` holds a record id.
        case id, string, textarea, picklist, multipicklist, email, phone, url, reference
        /// Scalar types: booleans, numbers, `yyyy-MM-dd` dates and UTC date-times in whole seconds.
        case boolean, int, double, currency, percent, date, datetime

        /// Whether values are text compared without regard to case.
        var isText: Bool {
            switch self {
            case .id, .string, .textarea, .picklist, .multipicklist, .email, .phone, .url, .reference: return true
            default: return false
            }
        }

        var isNumeric: Bool { [.int, .double, .currency, .percent].contains(self) }
    }

    /// The API name, canonical spelling.
    public var name: String
    /// The data type.
    public var type: FieldType
    /// The label used in error messages (`Account Name: data value too large…`).
    public var label: String
    /// The maximum length of a text value, if limited.
    public var length: Int?
    /// Whether a create must give a value.
    public var isRequired: Bool
    /// Whether the server maintains the value (audit fields, `Id`); writes are refused.
    public var isSystem: Bool
    /// Whether the field identifies records for upsert.
    public var isExternalID: Bool
    /// For a reference: the type it points at.
    public var referenceTo: String?
    /// For a reference: the parent relationship name used in paths (`Account` for `AccountId`).
    public var relationshipName: String?
    /// For a reference: the child relationship name on the parent (`Contacts`).
    public var childRelationshipName: String?
    /// For a master-detail reference: deleting the parent deletes the record too.
    public var cascadeDelete: Bool

    /// Creates a field.
    public init(
        name: String, type: FieldType, label: String? = nil, length: Int? = nil, isRequired: Bool = false,
        isSystem: Bool = false, isExternalID: Bool = false, referenceTo: String? = nil,
        relationshipName: String? = nil, childRelationshipName: String? = nil, cascadeDelete: Bool = false
    ) {
        self.cascadeDelete = cascadeDelete
        self.name = name
        self.type = type
        self.label = label ?? name
        self.length = length
        self.isRequired = isRequired
        self.isSystem = isSystem
        self.isExternalID = isExternalID
        self.referenceTo = referenceTo
        self.relationshipName = relationshipName
        self.childRelationshipName = childRelationshipName
    }
}
