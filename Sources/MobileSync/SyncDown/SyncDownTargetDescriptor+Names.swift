extension SyncDownTargetDescriptor {
    /// Refuses names that would go into a query or a URL path unquoted and are not plain API
    /// names: sObject types, relationship names, id and date fields (letters, digits, `_`), and
    /// field list entries (the same, with `.` between relationship hops).
    ///
    /// - Throws: ``SyncError/Code/malformedTarget`` naming the first bad name.
    static func checkNames(of kind: Kind) throws(SyncError) {
        var plain: [String] = []
        var paths: [String] = []
        switch kind {
        case .parentChildren(let relationship, let parentFieldlist, let childrenFieldlist, _):
            let parent = relationship.parent
            let children = relationship.children
            plain = [
                parent.sobjectType, parent.idFieldName, parent.modificationDateFieldName, children.sobjectType,
                children.sobjectTypePlural, children.parentIdFieldName, children.idFieldName,
                children.modificationDateFieldName,
            ]
            paths = parentFieldlist + childrenFieldlist
        case .briefcase(let infos, _):
            for info in infos {
                plain += [info.sobjectType, info.idFieldName, info.modificationDateFieldName]
                paths += info.fieldlist
            }
            guard !infos.isEmpty else {
                throw SyncError(.malformedTarget, "A briefcase target needs at least one info.")
            }
        case .metadata(let type):
            plain = [type]
        case .layout(let type, _, _, _, let recordTypeId):
            plain = [type] + (recordTypeId.map { [$0] } ?? [])
        case .soql, .sosl, .mru, .refresh, .custom:
            return
        }
        if let bad = plain.first(where: { !ParentChildrenRelationship.isPlainName($0) }) {
            throw SyncError(.malformedTarget, "Sync down target: \"\(bad)\" is not an API name.")
        }
        let isPath = { (path: String) in
            path.split(separator: ".", omittingEmptySubsequences: false).allSatisfy {
                ParentChildrenRelationship.isPlainName(String($0))
            }
        }
        if let bad = paths.first(where: { !isPath($0) }) {
            throw SyncError(.malformedTarget, "Sync down target: \"\(bad)\" is not a field name.")
        }
    }
}
