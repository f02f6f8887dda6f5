import Determinism
public import LosslessJSON
import SalesforceAPI

/// The parent/children target: one SOQL query whose child sub-query nests each parent's
/// children, paged through `nextRecordsUrl`; parents go to the parent soup and children, with
/// their parent's id, to the children soup (``SyncDownPageDestination``).
///
/// A reSync sends a second query for the parents whose children changed while they did not
/// (``SyncDownTargetDescriptor/parentChildrenQueries(maxTimeStamp:settledThrough:)``), and `totalSize` is the
/// parents both queries count. The pages of two queries are not in one modification order, and
/// a page's watermark counts its children, so the watermark advances when the run is DONE
/// (docs/decisions/0322-related-record-targets.md).
public struct ParentChildrenSyncDownTarget: SyncDownTarget {
    /// The parents, children and relationship.
    public let relationship: ParentChildrenRelationship
    /// The descriptor, which builds the queries.
    public let descriptor: SyncDownTargetDescriptor
    /// The parents' id field.
    public var idFieldName: String { relationship.parent.idFieldName }
    /// The parents' modification date field.
    public var modificationDateFieldName: String { relationship.parent.modificationDateFieldName }
    /// `false`: the watermark advances only when the run is DONE.
    public var isSortedByModificationDate: Bool { false }
    /// The window of the current run, known after the first fetch; every query of a run shares it.
    public private(set) var reSyncWindow: ReSyncWindow?
    /// The run's parent count, known after the first fetch; `-1` before.
    public private(set) var totalSize: Int64 = -1
    /// The server's clock when it answered the run's first query; `-1` before, or when not sent.
    /// Like a SOQL target's, it settles the seconds before it for the next reSync (decision 0325).
    public private(set) var serverReadTime: Int64 = -1
    /// Parents to the parent soup, their nested children to the children soup.
    public var pageDestination: SyncDownPageDestination? {
        let parent = relationship.parent
        let children = relationship.children
        return SyncDownPageDestination(
            soupName: parent.soupName, idFieldName: parent.idFieldName,
            modificationDateFieldName: parent.modificationDateFieldName,
            children: SyncDownPageDestination.Children(
                soupName: children.soupName, relationshipName: children.sobjectTypePlural,
                idFieldName: children.idFieldName, modificationDateFieldName: children.modificationDateFieldName,
                parentIdFieldName: children.parentIdFieldName))
    }

    /// The next page of the query being read, then the first pages of the queries after it.
    private var nextRecordsURL: String?
    private var laterFirstPages: [QueryResult] = []

    /// Makes the target of a `parent_children` descriptor.
    ///
    /// - Throws: ``SyncError/Code/malformedTarget`` for another kind of descriptor.
    public init(_ descriptor: SyncDownTargetDescriptor) throws(SyncError) {
        guard case .parentChildren(let relationship, _, _, _) = descriptor.kind else {
            throw SyncError(.malformedTarget, "A parent/children target needs a parent_children descriptor.")
        }
        self.relationship = relationship
        self.descriptor = descriptor
    }

    /// Sends the run's queries and returns the first page of parents.
    public mutating func startFetch(_ context: SyncDownContext, maxTimeStamp: Int64) async throws -> [JSONValue] {
        let client = try context.requireClient()
        reSyncWindow = descriptor.reSyncWindow(maxTimeStamp: maxTimeStamp, settledThrough: context.settledThrough)
        var firstPages: [QueryResult] = []
        for query in try descriptor.parentChildrenQueries(
            maxTimeStamp: maxTimeStamp, settledThrough: context.settledThrough)
        {
            firstPages.append(try await client.query(query))
        }
        totalSize = firstPages.reduce(0) { $0 + Int64($1.totalSize) }
        serverReadTime = firstPages.first?.serverTime?.millisecondsSinceEpoch ?? -1
        guard !firstPages.isEmpty else { return [] }
        let first = firstPages.removeFirst()
        laterFirstPages = firstPages
        nextRecordsURL = first.done ? nil : first.nextRecordsURL
        return first.records
    }

    /// The next page of parents, or `nil` when every query is read.
    public mutating func continueFetch(_ context: SyncDownContext) async throws -> [JSONValue]? {
        if let next = nextRecordsURL {
            let result = try await context.requireClient().queryMore(nextRecordsURL: next)
            nextRecordsURL = result.done ? nil : result.nextRecordsURL
            return result.records
        }
        guard !laterFirstPages.isEmpty else { return nil }
        let result = laterFirstPages.removeFirst()
        nextRecordsURL = result.done ? nil : result.nextRecordsURL
        return result.records
    }

    /// The parents' remote ids; see ``remoteIdsBySoup(_:)``, which ghost cleaning uses.
    public func remoteIds(_ context: SyncDownContext, localIds: [String]) async throws -> Set<String> {
        guard let queries = try descriptor.parentChildrenRemoteIdsQueries() else { return [] }
        return try await SOQLSyncDownTarget.allIds(
            of: queries.parents, idFieldName: idFieldName, client: context.requireClient())
    }

    /// The parents the filter selects now, and the children nested under them.
    public func remoteIdsBySoup(_ context: SyncDownContext) async throws -> [SoupRemoteIds]? {
        guard let queries = try descriptor.parentChildrenRemoteIdsQueries() else { return nil }
        let client = try context.requireClient()
        let parents = try await SOQLSyncDownTarget.allIds(of: queries.parents, idFieldName: idFieldName, client: client)
        let children = relationship.children
        var childIds = Set<String>()
        var result = try await client.query(queries.children)
        while true {
            for parent in result.records {
                for child in SyncDownPage.nestedChildren(of: parent, relationshipName: children.sobjectTypePlural) {
                    if let id = child[children.idFieldName]?.string { childIds.insert(id) }
                }
            }
            guard !result.done, let next = result.nextRecordsURL else { break }
            result = try await client.queryMore(nextRecordsURL: next)
        }
        return [
            SoupRemoteIds(soupName: relationship.parent.soupName, idFieldName: idFieldName, remoteIds: parents),
            SoupRemoteIds(
                soupName: children.soupName, idFieldName: children.idFieldName,
                parentIdFieldName: children.parentIdFieldName, remoteIds: childIds),
        ]
    }
}
