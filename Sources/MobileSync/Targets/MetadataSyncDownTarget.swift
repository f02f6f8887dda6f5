public import LosslessJSON
import SalesforceAPI

/// The metadata target: the describe result of one sObject type (`GET sobjects/<type>/describe`),
/// stored as one record whose `Id` is the type name, so a new sync replaces it in place.
///
/// The record has no modification date, so the watermark stays `-1` and every run fetches the
/// describe again; ghost cleaning never deletes it, as in Mobile SDK.
public struct MetadataSyncDownTarget: SingleRecordSyncDownTarget {
    /// The sObject type described.
    public let sobjectType: String
    /// `Id`.
    public var idFieldName: String { SyncDownTargetDescriptor.idFieldNameDefault }
    /// `LastModifiedDate`, which a describe does not have.
    public var modificationDateFieldName: String { SyncDownTargetDescriptor.modificationDateFieldNameDefault }
    /// `false`.
    public var isSortedByModificationDate: Bool { false }
    /// 1 once fetched; `-1` before.
    public private(set) var totalSize: Int64 = -1

    /// Makes the target of a `metadata` descriptor.
    ///
    /// - Throws: ``SyncError/Code/malformedTarget`` for another kind of descriptor.
    public init(_ descriptor: SyncDownTargetDescriptor) throws(SyncError) {
        guard case .metadata(let type) = descriptor.kind else {
            throw SyncError(.malformedTarget, "A metadata target needs a metadata descriptor.")
        }
        sobjectType = type
    }

    /// Fetches the describe result.
    public mutating func startFetch(_ context: SyncDownContext, maxTimeStamp: Int64) async throws -> [JSONValue] {
        let describe = try await context.requireClient().describe(type: sobjectType)
        totalSize = 1
        return [try Self.record(describe, id: sobjectType, what: "The describe of \(sobjectType)")]
    }

}

/// A target that stores one record per run (metadata, layout): no second page, no ghosts.
protocol SingleRecordSyncDownTarget: SyncDownTarget {}

extension SingleRecordSyncDownTarget {
    /// No second page.
    public mutating func continueFetch(_ context: SyncDownContext) async throws -> [JSONValue]? {
        nil
    }

    /// Every local id: the record is never a ghost.
    public func remoteIds(_ context: SyncDownContext, localIds: [String]) async throws -> Set<String> {
        Set(localIds)
    }

    /// The server's answer as the stored record, with `Id` set to `id`.
    ///
    /// - Throws: `SalesforceError` `.invalidResponse` when the answer is not a JSON object.
    static func record(_ answer: JSONValue, id: String, what: String) throws -> JSONValue {
        guard case .object(var fields) = answer else {
            throw SalesforceError(code: .invalidResponse, message: "\(what) is not an object.")
        }
        fields[SyncDownTargetDescriptor.idFieldNameDefault] = .string(id)
        return .object(fields)
    }
}
