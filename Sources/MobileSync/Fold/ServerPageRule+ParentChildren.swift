import EventJournal
import LosslessJSON
import Soups

// A parent/children sync-down page: parents with their children nested under the relationship
// name, as the server answered the query with a child sub-query. The header names both soups
// (`soup`, `childrenSoup`), the key of the nested children (`childrenRelationship`), their id
// field and the child field that receives the parent's id (docs/mobilesync.md); the page's
// parser reads them into `SyncDownPage.children`.
extension ServerPageRule {
    /// Writes a parent/children page: each parent without its nested children into the parent
    /// soup, then each child, with the parent's id in its parent id field, into the children
    /// soup. Both soups share `next-entry-id`, as every fold does.
    ///
    /// Under LEAVE_IF_CHANGED a fetched record whose local copy is dirty when the page is
    /// applied is skipped, parent or child, so an edit made while the sync ran is never
    /// overwritten. Mobile SDK skips the whole tree of a parent with a dirty child; then a
    /// sibling changed on the server in the same run is never fetched again once the watermark
    /// passes it, so here its clean records are written (docs/decisions/0322-related-record-targets.md).
    ///
    /// Under either mode a parent or child that only the reSync's window brought is left alone
    /// (``RefetchRule``): the parent judged on the page's date field, a child, with its parent's
    /// id set, on the header's `childModificationDateFieldName`.
    ///
    /// - Returns: how many parents were left alone with all their children.
    func applyParentChildrenPage(
        _ records: [JSONValue], _ page: SyncDownPage, _ entry: JournalEntry, rule: RefetchRule, in state: SoupState
    ) throws -> Int {
        guard let destination = page.children else { preconditionFailure("a parent/children page") }
        let idField = page.idFieldName
        let childIdField = destination.idFieldName
        let parentIdField = destination.parentIdFieldName
        let leavesChanges = page.mergeMode == .leaveIfChanged
        let childSoup = try state.requireSoup(destination.soupName)
        let childRule = rule.withDateField(rule.appliesToSomeDate ? destination.modificationDateFieldName : nil)
        let trees = try records.map {
            try Self.tree($0, relationship: destination.relationshipName, sequence: entry.sequence)
        }
        let idComponents = SoupPath.components(idField)
        let parentIds = trees.map { SoupPath.project(.object($0.parent), components: idComponents) }
        var parents = try FetchedRecordWriter(
            state: state, soup: try state.requireSoup(page.soupName), idField: idField, rule: rule,
            wanted: parentIds.compactMap { $0 }, syncId: page.syncId, time: entry.timestamp)
        let childComponents = SoupPath.components(childIdField)
        var children = try FetchedRecordWriter(
            state: state, soup: childSoup, idField: childIdField, rule: childRule,
            wanted: trees.flatMap { $0.children.compactMap { SoupPath.project($0, components: childComponents) } },
            syncId: page.syncId, time: entry.timestamp)
        var nextEntryId = try state.nextEntryId()
        var unchangedTrees = 0
        for (tree, parentId) in zip(trees, parentIds) {
            let parent = JSONValue.object(tree.parent)
            let parentMatch = try parents.match(parent, idValue: parentId)
            let childIds = tree.children.map { children.idValue(of: $0) }
            let childMatches = try zip(tree.children, childIds).map { try children.match($0, idValue: $1) }
            let parentIsLeftAlone = try parentMatch.map { try parents.isLeftAlone(parent, match: $0) } ?? false
            var treeIsUnchanged = parentIsLeftAlone
            let keepsLocalParent = try leavesChanges && (parentMatch.map(parents.isInDirtySet) ?? false)
            if let parentMatch, parentIsLeftAlone || keepsLocalParent {
                let decision: FoldDecision =
                    parentIsLeftAlone
                    ? .fetchedAgainUnchanged(syncId: page.syncId) : .keptLocalChange(syncId: page.syncId)
                try parents.explain(parentMatch, decision, idValue: parentId)
            } else {
                let overwrites = try parents.overwritesLocalChange(parentMatch)
                let entryId = try parents.store(
                    parent, idValue: parentId, match: parentMatch, nextEntryId: &nextEntryId)
                try parents.explain(entryId, .fetched(page.syncId, overwriting: overwrites), idValue: parentId)
            }
            for ((child, childId), match) in zip(zip(tree.children, childIds), childMatches) {
                guard case .object(var fields) = child else { continue }
                fields[parentIdField] = tree.parent[idField] ?? .null
                let linked = JSONValue.object(fields)
                if let match, try children.isLeftAlone(linked, match: match) {
                    try children.explain(match, .fetchedAgainUnchanged(syncId: page.syncId), idValue: childId)
                    continue
                }
                treeIsUnchanged = false
                if leavesChanges, let match, try children.isInDirtySet(match) {
                    try children.explain(match, .keptLocalChange(syncId: page.syncId), idValue: childId)
                    continue
                }
                let overwrites = try children.overwritesLocalChange(match)
                let entryId = try children.store(linked, idValue: childId, match: match, nextEntryId: &nextEntryId)
                try children.explain(entryId, .fetched(page.syncId, overwriting: overwrites), idValue: childId)
            }
            if treeIsUnchanged { unchangedTrees += 1 }
        }
        try state.putNextEntryId(nextEntryId)
        return unchangedTrees
    }

    /// A fetched parent split into its own fields and its nested children (none when the
    /// relationship is null or missing, as Salesforce sends a parent without children).
    private static func tree(_ record: JSONValue, relationship: String, sequence: UInt64) throws -> (
        parent: [String: JSONValue], children: [JSONValue]
    ) {
        guard case .object(var parent) = record else {
            throw SoupError(.notAnObject, "entry \(sequence): a fetched record is not a JSON object")
        }
        let nested = parent.removeValue(forKey: relationship)
        let children = nested?["records"]?.array ?? []
        guard children.allSatisfy({ $0.object != nil }) else {
            throw SoupError(.notAnObject, "entry \(sequence): a fetched child record is not a JSON object")
        }
        return (parent, children)
    }
}
