import Determinism
public import LosslessJSON
import SalesforceAPI

/// The SOQL target: `GET query?q=` then `nextRecordsUrl` until the server says done.
///
/// The query is the descriptor's normalized one (it selects the id and date fields and is
/// ordered). A resync adds `<date field> >= <window start>` in front of the `where`: the start of
/// the watermark's second minus the descriptor's overlap (``ReSyncWindow``,
/// ``SOQLQuery/addFilterForReSync(_:modificationDateFieldName:window:)``). The page size is sent
/// as `Sforce-Query-Options: batchSize=N` when it is not the server's 2000.
public struct SOQLSyncDownTarget: SyncDownTarget {
    /// The normalized query.
    public let query: String
    /// The requested page size, clamped to 200…2000 when sent.
    public let maxBatchSize: Int
    /// The descriptor's id field.
    public let idFieldName: String
    /// The descriptor's modification date field.
    public let modificationDateFieldName: String
    /// Whether the query is ordered exactly by the modification date field.
    public let isSortedByModificationDate: Bool
    /// The descriptor's reSync overlap, in seconds.
    public let reSyncOverlapSeconds: Int
    /// The window of the current run, known after the first fetch: every page of a run shares it.
    public private(set) var reSyncWindow: ReSyncWindow?
    /// The run's record count, known after the first fetch; `-1` before.
    public private(set) var totalSize: Int64 = -1
    /// The server's clock when it answered the first page; `-1` before, or when not sent.
    public private(set) var serverReadTime: Int64 = -1
    private var nextRecordsURL: String?

    /// Makes the target of a `soql` descriptor.
    ///
    /// - Throws: ``SyncError/Code/malformedTarget`` for another kind of descriptor.
    public init(_ descriptor: SyncDownTargetDescriptor) throws(SyncError) {
        guard case .soql(let query, let maxBatchSize) = descriptor.kind else {
            throw SyncError(.malformedTarget, "A SOQL target needs a soql descriptor.")
        }
        self.query = query
        self.maxBatchSize = maxBatchSize
        idFieldName = descriptor.idFieldName
        modificationDateFieldName = descriptor.modificationDateFieldName
        isSortedByModificationDate = descriptor.isSortedByModificationDate
        reSyncOverlapSeconds = descriptor.reSyncOverlapSeconds
    }

    /// The query a run with this watermark sends.
    ///
    /// - Parameters:
    ///   - maxTimeStamp: the watermark handed to the target.
    ///   - settledThrough: the sync's ``SyncState/settledThrough``, or `-1`.
    public func query(maxTimeStamp: Int64, settledThrough: Int64 = -1) throws(SyncError) -> String {
        try SOQLQuery.addFilterForReSync(
            query, modificationDateFieldName: modificationDateFieldName,
            window: ReSyncWindow(
                maxTimeStamp: maxTimeStamp, overlapSeconds: reSyncOverlapSeconds, settledThrough: settledThrough))
    }

    /// Fetches the first page; see ``SyncDownTarget/startFetch(_:maxTimeStamp:)``.
    public mutating func startFetch(_ context: SyncDownContext, maxTimeStamp: Int64) async throws -> [JSONValue] {
        reSyncWindow = ReSyncWindow(
            maxTimeStamp: maxTimeStamp, overlapSeconds: reSyncOverlapSeconds, settledThrough: context.settledThrough)
        let result = try await context.requireClient().query(
            try query(maxTimeStamp: maxTimeStamp, settledThrough: context.settledThrough), batchSize: maxBatchSize)
        totalSize = Int64(result.totalSize)
        serverReadTime = result.serverTime?.millisecondsSinceEpoch ?? -1
        nextRecordsURL = result.done ? nil : result.nextRecordsURL
        return result.records
    }

    /// The next page, or `nil` when there is none.
    public mutating func continueFetch(_ context: SyncDownContext) async throws -> [JSONValue]? {
        guard let next = nextRecordsURL else { return nil }
        let result = try await context.requireClient().queryMore(nextRecordsURL: next)
        nextRecordsURL = result.done ? nil : result.nextRecordsURL
        return result.records
    }

    /// Runs the query with only the id field, unordered and without the resync filter, all pages.
    public func remoteIds(_ context: SyncDownContext, localIds: [String]) async throws -> Set<String> {
        let client = try context.requireClient()
        let idsQuery = try SOQLQuery.remoteIdsQuery(query, idFieldName: idFieldName)
        return try await Self.allIds(of: idsQuery, idFieldName: idFieldName, client: client)
    }

    /// Every `idFieldName` value a query returns, following `nextRecordsUrl`.
    static func allIds(of query: String, idFieldName: String, client: SalesforceClient) async throws -> Set<String> {
        var ids = Set<String>()
        var result = try await client.query(query)
        while true {
            for record in result.records { if let id = record[idFieldName]?.string { ids.insert(id) } }
            guard !result.done, let next = result.nextRecordsURL else { return ids }
            result = try await client.queryMore(nextRecordsURL: next)
        }
    }
}
