import LosslessJSON

/// The two sides of a parent/children sync: Mobile SDK's `parent` and `children` infos and the
/// `relationshipType`, shared by ``SyncDownTargetDescriptor/Kind/parentChildren(_:parentFieldlist:childrenFieldlist:parentSoqlFilter:)``
/// and ``SyncUpTargetDescriptor/Kind/parentChildren(_:childrenCreateFieldlist:childrenUpdateFieldlist:)``.
///
/// Parents live in one soup and their children in another; a child names its parent by the
/// value of ``Children-swift.struct/parentIdFieldName`` (`AccountId`), which holds the parent's
/// ``Parent-swift.struct/idFieldName`` value.
///
/// ```swift
/// let accounts = ParentChildrenRelationship(
///     parent: .init(sobjectType: "Account", soupName: "accounts"),
///     children: .init(sobjectType: "Contact", sobjectTypePlural: "Contacts", soupName: "contacts",
///                     parentIdFieldName: "AccountId"),
///     relationshipType: .masterDetail)
/// ```
public struct ParentChildrenRelationship: Hashable, Sendable {
    /// The parent side (`parent` in the target JSON).
    public struct Parent: Hashable, Sendable {
        /// The parents' sObject type, such as `Account`.
        public var sobjectType: String
        /// The soup parents are stored in.
        public var soupName: String
        /// The parents' id field, `Id` by default.
        public var idFieldName: String
        /// The parents' modification date field, `LastModifiedDate` by default.
        public var modificationDateFieldName: String
        /// The field a locally created parent is upserted by, if any.
        public var externalIdFieldName: String?

        /// Creates a parent side with Mobile SDK's default field names.
        public init(
            sobjectType: String, soupName: String,
            idFieldName: String = SyncDownTargetDescriptor.idFieldNameDefault,
            modificationDateFieldName: String = SyncDownTargetDescriptor.modificationDateFieldNameDefault,
            externalIdFieldName: String? = nil
        ) {
            self.sobjectType = sobjectType
            self.soupName = soupName
            self.idFieldName = idFieldName
            self.modificationDateFieldName = modificationDateFieldName
            self.externalIdFieldName = externalIdFieldName
        }
    }

    /// The children side (`children` in the target JSON).
    public struct Children: Hashable, Sendable {
        /// The children's sObject type, such as `Contact`.
        public var sobjectType: String
        /// The child relationship's name on the parent, such as `Contacts`: the sub-query's
        /// `from` and the key of the children in a fetched parent.
        public var sobjectTypePlural: String
        /// The soup children are stored in.
        public var soupName: String
        /// The child field holding its parent's id, such as `AccountId`.
        public var parentIdFieldName: String
        /// The children's id field, `Id` by default.
        public var idFieldName: String
        /// The children's modification date field, `LastModifiedDate` by default.
        public var modificationDateFieldName: String
        /// The field a locally created child is upserted by, if any.
        public var externalIdFieldName: String?

        /// Creates a children side with Mobile SDK's default field names.
        public init(
            sobjectType: String, sobjectTypePlural: String, soupName: String, parentIdFieldName: String,
            idFieldName: String = SyncDownTargetDescriptor.idFieldNameDefault,
            modificationDateFieldName: String = SyncDownTargetDescriptor.modificationDateFieldNameDefault,
            externalIdFieldName: String? = nil
        ) {
            self.sobjectType = sobjectType
            self.sobjectTypePlural = sobjectTypePlural
            self.soupName = soupName
            self.parentIdFieldName = parentIdFieldName
            self.idFieldName = idFieldName
            self.modificationDateFieldName = modificationDateFieldName
            self.externalIdFieldName = externalIdFieldName
        }
    }

    /// How children depend on their parent.
    public enum RelationshipType: String, Hashable, Sendable, CaseIterable {
        /// The server deletes a parent's children with it: deleting a parent locally deletes
        /// its children too, and a re-created parent re-creates them.
        case masterDetail = "MASTER_DETAIL"
        /// Children outlive their parent; a re-created parent has its children updated to
        /// point at it.
        case lookup = "LOOKUP"
    }

    /// The parent side.
    public var parent: Parent
    /// The children side.
    public var children: Children
    /// How children depend on their parent.
    public var relationshipType: RelationshipType

    /// Creates a relationship.
    public init(parent: Parent, children: Children, relationshipType: RelationshipType) {
        self.parent = parent
        self.children = children
        self.relationshipType = relationshipType
    }
}

// MARK: - JSON

extension ParentChildrenRelationship {
    /// The keys of a target JSON this type reads.
    static let interpretedKeys = ["parent", "children", "relationshipType"]

    /// Reads `parent`, `children` and `relationshipType` from a target's JSON members.
    ///
    /// - Throws: ``SyncError/Code/malformedTarget`` naming the missing or mistyped key.
    init(_ fields: JSONFields) throws(SyncError) {
        let parent = try JSONFields(fields.value("parent"), what: "\(fields.what) parent", code: fields.code)
        let children = try JSONFields(fields.value("children"), what: "\(fields.what) children", code: fields.code)
        let typeText = try fields.string("relationshipType")
        guard let type = RelationshipType(rawValue: typeText) else {
            throw SyncError(
                fields.code,
                "\(fields.what): \"relationshipType\" must be MASTER_DETAIL or LOOKUP, not \"\(typeText)\".")
        }
        self.init(
            parent: Parent(
                sobjectType: try Self.typeName(parent, "sobjectType"), soupName: try parent.string("soupName"),
                idFieldName: try Self.fieldName(parent, MobileSDKKey.idFieldName)
                    ?? SyncDownTargetDescriptor.idFieldNameDefault,
                modificationDateFieldName: try Self.fieldName(parent, "modificationDateFieldName")
                    ?? SyncDownTargetDescriptor.modificationDateFieldNameDefault,
                externalIdFieldName: try Self.fieldName(parent, "externalIdFieldName")),
            children: Children(
                sobjectType: try Self.typeName(children, "sobjectType"),
                sobjectTypePlural: try Self.typeName(children, "sobjectTypePlural"),
                soupName: try children.string("soupName"),
                parentIdFieldName: try Self.typeName(children, "parentIdFieldName"),
                idFieldName: try Self.fieldName(children, MobileSDKKey.idFieldName)
                    ?? SyncDownTargetDescriptor.idFieldNameDefault,
                modificationDateFieldName: try Self.fieldName(children, "modificationDateFieldName")
                    ?? SyncDownTargetDescriptor.modificationDateFieldNameDefault,
                externalIdFieldName: try Self.fieldName(children, "externalIdFieldName")),
            relationshipType: type)
    }

    /// Writes `parent`, `children` and `relationshipType` into a target's JSON members.
    func write(into members: inout [String: JSONValue]) {
        var parentJSON: [String: JSONValue] = [
            "sobjectType": .string(parent.sobjectType), "soupName": .string(parent.soupName),
            MobileSDKKey.idFieldName: .string(parent.idFieldName),
            "modificationDateFieldName": .string(parent.modificationDateFieldName),
        ]
        if let field = parent.externalIdFieldName { parentJSON["externalIdFieldName"] = .string(field) }
        var childrenJSON: [String: JSONValue] = [
            "sobjectType": .string(children.sobjectType), "sobjectTypePlural": .string(children.sobjectTypePlural),
            "soupName": .string(children.soupName), "parentIdFieldName": .string(children.parentIdFieldName),
            MobileSDKKey.idFieldName: .string(children.idFieldName),
            "modificationDateFieldName": .string(children.modificationDateFieldName),
        ]
        if let field = children.externalIdFieldName { childrenJSON["externalIdFieldName"] = .string(field) }
        members["parent"] = .object(parentJSON)
        members["children"] = .object(childrenJSON)
        members["relationshipType"] = .string(relationshipType.rawValue)
    }

    /// A name that goes into SOQL or a URL path unquoted: letters, digits and `_` only, so a
    /// config file cannot smuggle SOQL into a query.
    static func typeName(_ fields: JSONFields, _ key: String) throws(SyncError) -> String {
        let name = try fields.string(key)
        guard isPlainName(name) else {
            throw SyncError(fields.code, "\(fields.what): \"\(key)\" \"\(name)\" is not an API name.")
        }
        return name
    }

    /// An optional member that, when present, must be a plain API name.
    static func fieldName(_ fields: JSONFields, _ key: String) throws(SyncError) -> String? {
        guard try fields.optionalString(key) != nil else { return nil }
        return try typeName(fields, key)
    }

    /// Whether `name` is a plain API name (letters, digits, `_`), safe to put in SOQL unquoted.
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
            }
    }
}
