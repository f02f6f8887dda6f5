public import LosslessJSON

/// An object's describe (`GET sobjects/<type>/describe`): Mobile SDK's `Metadata` model, read
/// from the JSON that ``MetadataSyncManager`` caches.
///
/// The model names what apps read most (the object's names and abilities, its fields, its child
/// relationships); ``rawData`` keeps the whole describe for the rest.
public struct Metadata: Hashable, Sendable {
    /// One field of the object.
    public struct Field: Hashable, Sendable {
        /// The API name.
        public var name: String
        /// The label.
        public var label: String?
        /// The field type (`string`, `reference`, `picklist`, …).
        public var type: String?
        /// The maximum length, for text fields.
        public var length: Int?
        /// Whether it may be empty.
        public var isNillable: Bool
        /// Whether a new record may set it.
        public var isCreateable: Bool
        /// Whether an update may set it.
        public var isUpdateable: Bool
        /// Whether it is an external id (usable to upsert).
        public var isExternalId: Bool
        /// For a lookup: the objects it may point to.
        public var referenceTo: [String]
        /// For a lookup: the relationship's name.
        public var relationshipName: String?
        /// The field's whole describe.
        public var rawData: JSONValue
    }

    /// A child relationship: another object whose lookup points here.
    public struct ChildRelationship: Hashable, Sendable {
        /// The child object.
        public var childObject: String?
        /// The child's lookup field.
        public var field: String?
        /// The relationship's name, as a subquery names it.
        public var relationshipName: String?
        /// Whether deleting the parent deletes the children.
        public var isCascadeDelete: Bool
    }

    /// The object's API name.
    public var name: String?
    /// Its label.
    public var label: String?
    /// Its plural label.
    public var labelPlural: String?
    /// The first three characters of its ids.
    public var keyPrefix: String?
    /// Whether it is a custom object.
    public var isCustom: Bool
    /// Whether records can be created, updated, deleted, queried and searched.
    public var isCreateable: Bool, isUpdateable: Bool, isDeletable: Bool, isQueryable: Bool, isSearchable: Bool
    /// Its fields, in the describe's order.
    public var fields: [Field]
    /// Its child relationships.
    public var childRelationships: [ChildRelationship]
    /// The whole describe, cache bookkeeping (`Id`, `_soup…`, sync flags) included.
    public var rawData: JSONValue

    /// Reads a describe (or the cached record); members it does not name stay in ``rawData``.
    public init(json: JSONValue) {
        rawData = json
        name = json["name"]?.string
        label = json["label"]?.string
        labelPlural = json["labelPlural"]?.string
        keyPrefix = json["keyPrefix"]?.string
        isCustom = json["custom"]?.bool ?? false
        isCreateable = json["createable"]?.bool ?? false
        isUpdateable = json["updateable"]?.bool ?? false
        isDeletable = json["deletable"]?.bool ?? false
        isQueryable = json["queryable"]?.bool ?? false
        isSearchable = json["searchable"]?.bool ?? false
        fields = (json["fields"]?.array ?? []).compactMap(Self.field)
        childRelationships = (json["childRelationships"]?.array ?? []).map { child in
            ChildRelationship(
                childObject: child["childSObject"]?.string, field: child["field"]?.string,
                relationshipName: child["relationshipName"]?.string,
                isCascadeDelete: child["cascadeDelete"]?.bool ?? false)
        }
    }

    /// The field named `name`, if the object has it.
    public func field(named name: String) -> Field? {
        fields.first { $0.name == name }
    }

    private static func field(_ json: JSONValue) -> Field? {
        guard let name = json["name"]?.string else { return nil }
        return Field(
            name: name, label: json["label"]?.string, type: json["type"]?.string,
            length: json["length"]?.number?.int64Value.map { Int($0) }, isNillable: json["nillable"]?.bool ?? false,
            isCreateable: json["createable"]?.bool ?? false, isUpdateable: json["updateable"]?.bool ?? false,
            isExternalId: json["externalId"]?.bool ?? false,
            referenceTo: (json["referenceTo"]?.array ?? []).compactMap(\.string),
            relationshipName: json["relationshipName"]?.string, rawData: json)
    }
}
