public import LosslessJSON
import SalesforceAPI

/// The SOSL target: one `GET search?q=`, one page; never sorted, so the watermark moves at DONE.
public struct SOSLSyncDownTarget: SyncDownTarget {
    /// The search.
    public let query: String
    /// The descriptor's id field.
    public let idFieldName: String
    /// The descriptor's modification date field.
    public let modificationDateFieldName: String
    /// `false`: the watermark advances only when the run is DONE.
    public var isSortedByModificationDate: Bool { false }
    /// The run's record count, known after the first fetch; `-1` before.
    public private(set) var totalSize: Int64 = -1

    /// Makes the target of a `sosl` descriptor.
    ///
    /// - Throws: ``SyncError/Code/malformedTarget`` for another kind of descriptor.
    public init(_ descriptor: SyncDownTargetDescriptor) throws(SyncError) {
        guard case .sosl(let query) = descriptor.kind else {
            throw SyncError(.malformedTarget, "A SOSL target needs a sosl descriptor.")
        }
        self.query = query
        idFieldName = descriptor.idFieldName
        modificationDateFieldName = descriptor.modificationDateFieldName
    }

    /// Runs the search; the watermark is ignored, as in Mobile SDK.
    public mutating func startFetch(_ context: SyncDownContext, maxTimeStamp: Int64) async throws -> [JSONValue] {
        let records = try await context.requireClient().search(query)
        totalSize = Int64(records.count)
        return records
    }

    /// The next page, or `nil` when there is none.
    public mutating func continueFetch(_ context: SyncDownContext) async throws -> [JSONValue]? {
        nil
    }

    /// Runs the search again and keeps the ids.
    public func remoteIds(_ context: SyncDownContext, localIds: [String]) async throws -> Set<String> {
        let records = try await context.requireClient().search(query)
        return Set(records.compactMap { $0[idFieldName]?.string })
    }
}
