public import LosslessJSON
import SalesforceAPI

/// The MRU target: the ids of `GET sobjects/<type>` `recentItems`, then one query for them with
/// the field list as given; one page, never sorted.
public struct MRUSyncDownTarget: SyncDownTarget {
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

    /// Makes the target of an `mru` descriptor.
    ///
    /// - Throws: ``SyncError/Code/malformedTarget`` for another kind of descriptor.
    public init(_ descriptor: SyncDownTargetDescriptor) throws(SyncError) {
        guard case .mru(let type, _) = descriptor.kind else {
            throw SyncError(.malformedTarget, "An MRU target needs an mru descriptor.")
        }
        self.descriptor = descriptor
        // The type name goes into a URL path and a query; refuse what could break out of either.
        guard !type.isEmpty, type.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
            throw SyncError(.malformedTarget, "MRU target: \"\(type)\" is not an sObject type name.")
        }
    }

    /// Fetches the recent items; the watermark is ignored, as in Mobile SDK.
    public mutating func startFetch(_ context: SyncDownContext, maxTimeStamp: Int64) async throws -> [JSONValue] {
        guard case .mru(let type, _) = descriptor.kind else { return [] }
        let client = try context.requireClient()
        let recentIds = try await client.recentItems(type: type).recentItems.compactMap { $0["Id"]?.string }
        guard let query = descriptor.mruQuery(recentIds: recentIds) else {
            totalSize = 0
            return []
        }
        // Mobile SDK reads only the first page of this query: at most 200 recent items exist.
        let records = try await client.query(query).records
        totalSize = Int64(records.count)
        return records
    }

    /// The next page, or `nil` when there is none.
    public mutating func continueFetch(_ context: SyncDownContext) async throws -> [JSONValue]? {
        nil
    }

    /// Asks which of `localIds` still exist, in slices of the Refresh limit.
    public func remoteIds(_ context: SyncDownContext, localIds: [String]) async throws -> Set<String> {
        try await ExistingIds.check(localIds, descriptor: descriptor, client: context.requireClient())
    }
}
