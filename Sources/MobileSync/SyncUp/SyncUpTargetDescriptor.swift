public import LosslessJSON

/// Where a sync up sends local changes, as a value: the Mobile SDK sync-up target JSON, parsed.
///
/// Kept for the sync-up engine; this module only reads and writes it. The kind comes from
/// `androidImpl`/`iOSImpl`: none (or iOS `type` `rest`) means the default sObject Collections
/// target.
public struct SyncUpTargetDescriptor: Hashable, Sendable {
    /// Which built-in target, or a custom one.
    public var kind: Kind
    /// The record field holding the server id.
    public var idFieldName: String
    /// The record field holding the last modification time.
    public var modificationDateFieldName: String
    /// The fields sent on create; `nil` uses the options' field list.
    public var createFieldlist: [String]?
    /// The fields sent on update; `nil` uses the options' field list.
    public var updateFieldlist: [String]?
    /// The external id field used to upsert, if any.
    public var externalIdFieldName: String?
    /// The batch size asked for by a batch or collection target; `nil` asks for the target's
    /// largest, `SyncUpFields.batchSizeMax` (25) or `SyncUpFields.collectionSizeMax` (200).
    ///
    /// The size used is this value within 1 and the largest, and that is what ``json`` saves,
    /// the default included, as Mobile SDK does. Parsing stores `nil` for a value at or above the
    /// largest, so a descriptor survives a round trip unchanged. Other targets keep a
    /// `maxBatchSize` member in ``otherFields``.
    public var maxBatchSize: Int?
    /// Members this type does not interpret, kept so a round trip loses nothing.
    public var otherFields: [String: JSONValue]

    /// The sync-up targets.
    public enum Kind: Hashable, Sendable {
        /// sObject Collections, up to 200 records per call: the default.
        case collection
        /// One composite batch request, up to 25 records per call.
        case batch
        /// One REST call per record.
        case singleRecord
        /// Parents and their children, one composite request per parent with its dirty children
        /// (Mobile SDK's `ParentChildrenSyncUpTarget`). The parents' create and update lists are
        /// ``SyncUpTargetDescriptor/createFieldlist`` and ``SyncUpTargetDescriptor/updateFieldlist``.
        case parentChildren(
            ParentChildrenRelationship, childrenCreateFieldlist: [String]?, childrenUpdateFieldlist: [String]?)
        /// An app-defined target, found in the target registry under `registryKey`.
        case custom(registryKey: String)
    }

    /// Creates a descriptor with Mobile SDK's default field names.
    public init(
        _ kind: Kind = .collection, idFieldName: String = SyncDownTargetDescriptor.idFieldNameDefault,
        modificationDateFieldName: String = SyncDownTargetDescriptor.modificationDateFieldNameDefault
    ) {
        self.kind = kind
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
        self.otherFields = [:]
    }

    /// Creates a parent/children descriptor: its id, date and external id fields are the
    /// parent's, and `createFieldlist`/`updateFieldlist` are the parents' lists.
    public init(
        parentChildren relationship: ParentChildrenRelationship, createFieldlist: [String]?,
        updateFieldlist: [String]?, childrenCreateFieldlist: [String]?, childrenUpdateFieldlist: [String]?
    ) {
        self.init(
            .parentChildren(
                relationship, childrenCreateFieldlist: childrenCreateFieldlist,
                childrenUpdateFieldlist: childrenUpdateFieldlist),
            idFieldName: relationship.parent.idFieldName,
            modificationDateFieldName: relationship.parent.modificationDateFieldName)
        self.createFieldlist = createFieldlist
        self.updateFieldlist = updateFieldlist
        externalIdFieldName = relationship.parent.externalIdFieldName
    }

    /// Parses Mobile SDK sync-up target JSON.
    ///
    /// A parent/children target (class `ParentChildrenSyncUpTarget`) also reads `parent`,
    /// `children`, `relationshipType`, `childrenCreateFieldlist` and `childrenUpdateFieldlist`.
    ///
    /// - Throws: ``SyncError/Code/malformedTarget`` naming the bad key.
    public init(json: JSONValue) throws(SyncError) {
        let fields = try JSONFields(json, what: "Sync up target", code: .malformedTarget)
        var kind = Self.kind(
            iOS: try fields.optionalString(SyncDownTargetDescriptor.iOSImplKey),
            android: try fields.optionalString(SyncDownTargetDescriptor.androidImplKey))
        var idField = try fields.optionalString(MobileSDKKey.idFieldName) ?? SyncDownTargetDescriptor.idFieldNameDefault
        var dateField =
            try fields.optionalString("modificationDateFieldName")
            ?? SyncDownTargetDescriptor.modificationDateFieldNameDefault
        var interpreted = Self.interpretedKeys
        if kind == Self.parentChildrenMarker {
            let relationship = try ParentChildrenRelationship(fields)
            kind = .parentChildren(
                relationship, childrenCreateFieldlist: try fields.optionalStringArray("childrenCreateFieldlist"),
                childrenUpdateFieldlist: try fields.optionalStringArray("childrenUpdateFieldlist"))
            idField = relationship.parent.idFieldName
            dateField = relationship.parent.modificationDateFieldName
            interpreted +=
                ParentChildrenRelationship.interpretedKeys + [
                    "childrenCreateFieldlist", "childrenUpdateFieldlist",
                ]
        }
        self.init(kind, idFieldName: idField, modificationDateFieldName: dateField)
        createFieldlist = try fields.optionalStringArray("createFieldlist")
        updateFieldlist = try fields.optionalStringArray("updateFieldlist")
        externalIdFieldName = try fields.optionalString("externalIdFieldName")
        if case .parentChildren(let relationship, _, _) = kind {
            externalIdFieldName = relationship.parent.externalIdFieldName
        }
        var others = fields.members
        for key in interpreted { others[key] = nil }
        if let largest = kind.batchSizeMax {
            let asked = try fields.optionalInteger(Self.maxBatchSizeKey)
            maxBatchSize = asked.flatMap { $0 < Int64(largest) ? Int(Swift.max($0, 1)) : nil }
            others[Self.maxBatchSizeKey] = nil
        }
        // Class names that ``json`` would write anyway are not kept, so a descriptor survives a
        // round trip unchanged; any other spelling is kept as given.
        let names = Self.classNames(of: kind)
        if others[SyncDownTargetDescriptor.iOSImplKey]?.string == names.iOS,
            others[SyncDownTargetDescriptor.androidImplKey]?.string == names.android
        {
            others[SyncDownTargetDescriptor.iOSImplKey] = nil
            others[SyncDownTargetDescriptor.androidImplKey] = nil
        }
        otherFields = others
    }

    /// The Mobile SDK sync-up target JSON.
    public var json: JSONValue {
        var members = otherFields
        members[MobileSDKKey.idFieldName] = .string(idFieldName)
        members["modificationDateFieldName"] = .string(modificationDateFieldName)
        if let createFieldlist { members["createFieldlist"] = .array(createFieldlist.map(JSONValue.string)) }
        if let updateFieldlist { members["updateFieldlist"] = .array(updateFieldlist.map(JSONValue.string)) }
        if let externalIdFieldName { members["externalIdFieldName"] = .string(externalIdFieldName) }
        if let largest = kind.batchSizeMax {
            members[Self.maxBatchSizeKey] = .number(JSONNumber(Int64(SyncUpFields.batchSize(self, max: largest))))
        }
        if case .parentChildren(let relationship, let childrenCreate, let childrenUpdate) = kind {
            relationship.write(into: &members)
            members["externalIdFieldName"] = nil
            if let childrenCreate { members["childrenCreateFieldlist"] = .array(childrenCreate.map(JSONValue.string)) }
            if let childrenUpdate { members["childrenUpdateFieldlist"] = .array(childrenUpdate.map(JSONValue.string)) }
        }
        let names = Self.classNames(of: kind)
        if members[SyncDownTargetDescriptor.iOSImplKey] == nil, members[SyncDownTargetDescriptor.androidImplKey] == nil
        {
            if let iOS = names.iOS { members[SyncDownTargetDescriptor.iOSImplKey] = .string(iOS) }
            if let android = names.android { members[SyncDownTargetDescriptor.androidImplKey] = .string(android) }
        }
        return .object(members)
    }

    static let maxBatchSizeKey = "maxBatchSize"

    private static let interpretedKeys = [
        MobileSDKKey.idFieldName, "modificationDateFieldName", "createFieldlist", "updateFieldlist",
        "externalIdFieldName",
    ]

    /// The class names Mobile SDK uses for its built-in sync-up targets, by last name part.
    private static let builtInKinds: [String: Kind] = [
        "CollectionSyncUpTarget": .collection, "SFCollectionSyncUpTarget": .collection,
        "BatchSyncUpTarget": .batch, "SFBatchSyncUpTarget": .batch,
        "SyncUpTarget": .singleRecord, "SFSyncUpTarget": .singleRecord,
        "ParentChildrenSyncUpTarget": parentChildrenMarker, "SFParentChildrenSyncUpTarget": parentChildrenMarker,
    ]

    /// The kind a parent/children class name maps to before its `parent` and `children` are read.
    private static let parentChildrenMarker = Kind.custom(registryKey: "ParentChildrenSyncUpTarget")

    /// The class names written for `kind` so both SDKs read the target back: none for the
    /// default collection target, Mobile SDK's names for the others, the key for a custom one.
    private static func classNames(of kind: Kind) -> (iOS: String?, android: String?) {
        let package = "com.salesforce.androidsdk.mobilesync.target."
        switch kind {
        case .collection: return (nil, nil)
        case .batch: return ("SFBatchSyncUpTarget", package + "BatchSyncUpTarget")
        case .singleRecord: return ("SFSyncUpTarget", package + "SyncUpTarget")
        case .parentChildren: return ("SFParentChildrenSyncUpTarget", package + "ParentChildrenSyncUpTarget")
        case .custom(let key): return (key, nil)
        }
    }

    private static func kind(iOS: String?, android: String?) -> Kind {
        let name = iOS ?? android.flatMap { $0.split(separator: ".").last.map(String.init) }
        guard let name, !name.isEmpty else { return .collection }
        return builtInKinds[name] ?? .custom(registryKey: name)
    }
}

extension SyncUpTargetDescriptor.Kind {
    /// The largest batch of the built-in batching targets; `nil` for the others.
    var batchSizeMax: Int? {
        switch self {
        case .batch: SyncUpFields.batchSizeMax
        case .collection: SyncUpFields.collectionSizeMax
        case .singleRecord, .custom, .parentChildren: nil
        }
    }
}
