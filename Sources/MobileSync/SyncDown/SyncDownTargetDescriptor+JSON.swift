public import LosslessJSON

extension SyncDownTargetDescriptor {
    /// The JSON key naming a custom target's iOS class; also where a Swift registry key is written.
    static let iOSImplKey = "iOSImpl"
    /// The JSON key naming a custom target's Android class.
    static let androidImplKey = "androidImpl"
    /// The JSON key of ``reSyncOverlapSeconds``.
    static let reSyncOverlapKey = "reSyncOverlapSeconds"

    /// Parses Mobile SDK target JSON: `type` `soql`, `sosl`, `mru`, `refresh`, `parent_children`,
    /// `briefcase`, `metadata`, `layout` or `custom`.
    ///
    /// A target without `type` but with `iOSImpl` or `androidImpl` is custom. A custom target's
    /// registry key is its `iOSImpl`, or else the last dot-separated part of its `androidImpl`
    /// (`com.example.AccountTarget` → `AccountTarget`), so one config file serves both SDKs and
    /// this library.
    ///
    /// `reSyncOverlapSeconds` is read for the targets that reSync from the watermark (`soql`,
    /// `refresh`, `parent_children`, `briefcase`, `custom`); on `sosl`, `mru`, `metadata` and
    /// `layout`, which fetch everything every time, it is kept as an uninterpreted key.
    ///
    /// - Throws: ``SyncError/Code/malformedTarget`` naming the bad key or unsupported type, or
    ///   ``SyncError/Code/malformedQuery`` for a SOQL query that cannot be normalized.
    public init(json: JSONValue) throws(SyncError) {
        let fields = try JSONFields(json, what: "Sync down target", code: .malformedTarget)
        let idField = try fields.optionalString(MobileSDKKey.idFieldName) ?? Self.idFieldNameDefault
        let dateField = try fields.optionalString("modificationDateFieldName") ?? Self.modificationDateFieldNameDefault
        let type = try fields.optionalString("type")
        let kind = try Self.kind(type: type, fields: fields)
        let overlap = Self.readsOverlap(kind) ? try fields.optionalInteger(Self.reSyncOverlapKey) : nil
        var others = fields.members
        for key in Self.interpretedKeys(of: kind) { others[key] = nil }
        // A lone `iOSImpl` equal to the registry key is what ``json`` writes for a custom
        // target; dropping it keeps a round trip equal.
        if case .custom(let key) = kind, others[Self.androidImplKey] == nil, others[Self.iOSImplKey]?.string == key {
            others[Self.iOSImplKey] = nil
        }
        try self.init(
            kind, idFieldName: idField, modificationDateFieldName: dateField,
            reSyncOverlapSeconds: Int(clamping: overlap ?? 0), otherFields: others)
    }

    /// The Mobile SDK target JSON.
    public var json: JSONValue {
        var members = otherFields
        members[MobileSDKKey.idFieldName] = .string(idFieldName)
        members["modificationDateFieldName"] = .string(modificationDateFieldName)
        // Written only when set: a sync saved before decision 0321, folded again, keeps its JSON.
        if reSyncOverlapSeconds != 0 {
            members[Self.reSyncOverlapKey] = .number(JSONNumber(Int64(reSyncOverlapSeconds)))
        }
        switch kind {
        case .soql(let query, let maxBatchSize):
            members["type"] = "soql"
            members["query"] = .string(query)
            members["maxBatchSize"] = .number(JSONNumber(Int64(maxBatchSize)))
        case .sosl(let query):
            members["type"] = "sosl"
            members["query"] = .string(query)
        case .mru(let type, let fieldlist):
            members["type"] = "mru"
            members["sobjectType"] = .string(type)
            members["fieldlist"] = .array(fieldlist.map(JSONValue.string))
        case .refresh(let type, let fieldlist, let soupName, let count):
            members["type"] = "refresh"
            members["sobjectType"] = .string(type)
            members["fieldlist"] = .array(fieldlist.map(JSONValue.string))
            members["soupName"] = .string(soupName)
            members["countIdsPerSoql"] = .number(JSONNumber(Int64(count)))
        case .parentChildren(let relationship, let parentFieldlist, let childrenFieldlist, let filter):
            members["type"] = "parent_children"
            relationship.write(into: &members)
            members["parentFieldlist"] = .array(parentFieldlist.map(JSONValue.string))
            members["childrenFieldlist"] = .array(childrenFieldlist.map(JSONValue.string))
            members["parentSoqlFilter"] = .string(filter)
        case .briefcase(let infos, let count):
            members["type"] = "briefcase"
            members["infos"] = .array(infos.map(\.json))
            members["countIdsPerRetrieve"] = .number(JSONNumber(Int64(count)))
        case .metadata(let type):
            members["type"] = "metadata"
            members["sobjectType"] = .string(type)
        case .layout(let type, let formFactor, let layoutType, let mode, let recordTypeId):
            members["type"] = "layout"
            members["sobjectType"] = .string(type)
            let parameters = [
                ("formFactor", formFactor), ("layoutType", layoutType), ("mode", mode), ("recordTypeId", recordTypeId),
            ]
            for (key, value) in parameters { members[key] = value.map(JSONValue.string) ?? .null }
        case .custom(let key):
            members["type"] = "custom"
            if members[Self.iOSImplKey] == nil, members[Self.androidImplKey] == nil {
                members[Self.iOSImplKey] = .string(key)
            }
        }
        return .object(members)
    }

    private static func kind(type: String?, fields: JSONFields) throws(SyncError) -> Kind {
        switch type {
        case "soql":
            let size = try fields.optionalInteger("maxBatchSize").map { Int(clamping: $0) }
            return .soql(query: try fields.string("query"), maxBatchSize: size ?? soqlBatchSizeDefault)
        case "sosl":
            return .sosl(query: try fields.string("query"))
        case "mru":
            return .mru(sobjectType: try fields.string("sobjectType"), fieldlist: try fields.stringArray("fieldlist"))
        case "refresh":
            let count = try fields.optionalInteger("countIdsPerSoql").map { Int(clamping: $0) }
            return .refresh(
                sobjectType: try fields.string("sobjectType"), fieldlist: try fields.stringArray("fieldlist"),
                soupName: try fields.string("soupName"), countIdsPerSoql: count ?? refreshIdsPerQueryMax)
        case "parent_children":
            return .parentChildren(
                try ParentChildrenRelationship(fields), parentFieldlist: try fields.stringArray("parentFieldlist"),
                childrenFieldlist: try fields.stringArray("childrenFieldlist"),
                parentSoqlFilter: try fields.optionalString("parentSoqlFilter") ?? "")
        case "briefcase":
            guard let elements = try fields.value("infos").array else {
                throw SyncError(.malformedTarget, "\(fields.what): \"infos\" must be an array.")
            }
            var infos: [BriefcaseObjectInfo] = []
            for (index, element) in elements.enumerated() {
                infos.append(
                    try BriefcaseObjectInfo(
                        JSONFields(element, what: "\(fields.what) infos[\(index)]", code: .malformedTarget)))
            }
            let count = try fields.optionalInteger("countIdsPerRetrieve").map { Int(clamping: $0) }
            return .briefcase(infos: infos, countIdsPerRetrieve: count ?? briefcaseIdsPerRetrieveMax)
        case "metadata":
            return .metadata(sobjectType: try fields.string("sobjectType"))
        case "layout":
            return .layout(
                sobjectType: try fields.string("sobjectType"), formFactor: try fields.optionalString("formFactor"),
                layoutType: try fields.optionalString("layoutType"), mode: try fields.optionalString("mode"),
                recordTypeId: try fields.optionalString("recordTypeId"))
        case "custom", nil:
            guard let key = try registryKey(fields) else {
                throw SyncError(
                    .malformedTarget, "Sync down target has no \"type\" and no \"iOSImpl\" or \"androidImpl\".")
            }
            return .custom(registryKey: key)
        case let other?:
            throw SyncError(
                .malformedTarget,
                "Sync down target type \"\(other)\" is not supported (soql, sosl, mru, refresh, parent_children, "
                    + "briefcase, metadata, layout or custom).")
        }
    }

    private static func registryKey(_ fields: JSONFields) throws(SyncError) -> String? {
        if let iOS = try fields.optionalString(iOSImplKey), !iOS.isEmpty { return iOS }
        guard let android = try fields.optionalString(androidImplKey) else { return nil }
        let last = android.split(separator: ".").last.map(String.init) ?? ""
        return last.isEmpty ? nil : last
    }

    private static func interpretedKeys(of kind: Kind) -> [String] {
        let common = ["type", MobileSDKKey.idFieldName, "modificationDateFieldName"]
        switch kind {
        case .soql: return common + ["query", "maxBatchSize", reSyncOverlapKey]
        case .sosl: return common + ["query"]
        case .mru: return common + ["sobjectType", "fieldlist"]
        case .refresh: return common + ["sobjectType", "fieldlist", "soupName", "countIdsPerSoql", reSyncOverlapKey]
        case .parentChildren:
            return common + ParentChildrenRelationship.interpretedKeys + [
                "parentFieldlist", "childrenFieldlist", "parentSoqlFilter", reSyncOverlapKey,
            ]
        case .briefcase: return common + ["infos", "countIdsPerRetrieve", reSyncOverlapKey]
        case .metadata: return common + ["sobjectType"]
        case .layout: return common + ["sobjectType", "formFactor", "layoutType", "mode", "recordTypeId"]
        case .custom: return common + [reSyncOverlapKey]
        }
    }

    /// Whether targets of this kind reSync from the watermark, and so read an overlap.
    private static func readsOverlap(_ kind: Kind) -> Bool {
        switch kind {
        case .soql, .refresh, .parentChildren, .briefcase, .custom: true
        case .sosl, .mru, .metadata, .layout: false
        }
    }
}
