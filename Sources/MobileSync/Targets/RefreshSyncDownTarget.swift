public import LosslessJSON
import SalesforceAPI
import Soups

/// The Refresh target: re-fetches the records already in a soup, `countIdsPerSoql` ids per query.
///
/// Pages walk the soup's records ordered by the id field. On a resync (watermark > 0) each
/// query only asks for records changed since the latest modification among that slice's local
/// records, from the start of its second minus the overlap
/// (``SyncDownTargetDescriptor/refreshWindow(localSlice:syncMaxTimeStamp:)``).
/// `totalSize` is the soup's record count, an over-estimate on resync, as in Mobile SDK.
public struct RefreshSyncDownTarget: SyncDownTarget {
    /// The descriptor, which builds the queries.
    public let descriptor: SyncDownTargetDescriptor
    /// The descriptor's id field.
    public var idFieldName: String { descriptor.idFieldName }
    /// The descriptor's modification date field.
    public var modificationDateFieldName: String { descriptor.modificationDateFieldName }
    /// `false`: the watermark advances only when the run is DONE.
    public var isSortedByModificationDate: Bool { false }
    /// The run's record count, known after the first fetch; `-1` before.
    public private(set) var totalSize: Int64 = -1
    /// The window of the page last fetched: each slice of ids has its own.
    public private(set) var reSyncWindow: ReSyncWindow?
    private var pageIndex = 0
    private var syncMaxTimeStamp: Int64 = -1

    /// Makes the target of a `refresh` descriptor.
    ///
    /// - Throws: ``SyncError/Code/malformedTarget`` for another kind of descriptor.
    public init(_ descriptor: SyncDownTargetDescriptor) throws(SyncError) {
        guard case .refresh = descriptor.kind else {
            throw SyncError(.malformedTarget, "A Refresh target needs a refresh descriptor.")
        }
        self.descriptor = descriptor
    }

    /// Fetches the first page; see ``SyncDownTarget/startFetch(_:maxTimeStamp:)``.
    public mutating func startFetch(_ context: SyncDownContext, maxTimeStamp: Int64) async throws -> [JSONValue] {
        syncMaxTimeStamp = maxTimeStamp
        pageIndex = 0
        totalSize = Int64(try context.soups.count(QuerySpec.all(soupName)))
        return try await fetchPage(context) ?? []
    }

    /// The next page, or `nil` when there is none.
    public mutating func continueFetch(_ context: SyncDownContext) async throws -> [JSONValue]? {
        try await fetchPage(context)
    }

    /// Asks which of `localIds` still exist.
    public func remoteIds(_ context: SyncDownContext, localIds: [String]) async throws -> Set<String> {
        try await ExistingIds.check(localIds, descriptor: descriptor, client: context.requireClient())
    }

    private var soupName: String {
        guard case .refresh(_, _, let soupName, _) = descriptor.kind else { return "" }
        return soupName
    }

    private var idsPerQuery: Int {
        guard case .refresh(_, _, _, let count) = descriptor.kind else { return 1 }
        return count
    }

    /// The server's copy of the next slice of local records; `nil` when the soup is walked.
    private mutating func fetchPage(_ context: SyncDownContext) async throws -> [JSONValue]? {
        let slice = try context.soups.query(
            QuerySpec.all(soupName, orderPath: idFieldName, pageSize: idsPerQuery), pageIndex: pageIndex)
        let ids = slice.compactMap { $0[idFieldName]?.string }
        guard !ids.isEmpty else { return nil }
        pageIndex += 1
        let window = descriptor.refreshWindow(localSlice: slice, syncMaxTimeStamp: syncMaxTimeStamp)
        reSyncWindow = window
        guard let query = descriptor.refreshQuery(ids: ids, window: window) else { return [] }
        var result = try await context.requireClient().query(query)
        var records = result.records
        while !result.done, let next = result.nextRecordsURL {
            result = try await context.requireClient().queryMore(nextRecordsURL: next)
            records += result.records
        }
        return records
    }
}
