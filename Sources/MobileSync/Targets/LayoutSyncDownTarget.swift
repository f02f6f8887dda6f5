public import LosslessJSON
import SalesforceAPI

/// The layout target: the UI API record layout of one sObject type
/// (`GET ui-api/layout/<type>?formFactor=&layoutType=&mode=&recordTypeId=`, empty parameters
/// left out), stored as one record whose `Id` is `<type>-<formFactor>-<layoutType>-<mode>-<recordTypeId>`
/// (a missing parameter written `null`, as Mobile SDK does), so a new sync replaces it in place.
///
/// The record has no modification date, so every run fetches the layout again; ghost cleaning
/// never deletes it.
public struct LayoutSyncDownTarget: SingleRecordSyncDownTarget {
    /// The sObject type.
    public let sobjectType: String
    /// The query parameters.
    public let formFactor: String?, layoutType: String?, mode: String?, recordTypeId: String?
    /// `Id`.
    public var idFieldName: String { SyncDownTargetDescriptor.idFieldNameDefault }
    /// `LastModifiedDate`, which a layout does not have.
    public var modificationDateFieldName: String { SyncDownTargetDescriptor.modificationDateFieldNameDefault }
    /// `false`.
    public var isSortedByModificationDate: Bool { false }
    /// 1 once fetched; `-1` before.
    public private(set) var totalSize: Int64 = -1

    /// Makes the target of a `layout` descriptor.
    ///
    /// - Throws: ``SyncError/Code/malformedTarget`` for another kind of descriptor.
    public init(_ descriptor: SyncDownTargetDescriptor) throws(SyncError) {
        guard case .layout(let type, let formFactor, let layoutType, let mode, let recordTypeId) = descriptor.kind
        else { throw SyncError(.malformedTarget, "A layout target needs a layout descriptor.") }
        sobjectType = type
        self.formFactor = formFactor
        self.layoutType = layoutType
        self.mode = mode
        self.recordTypeId = recordTypeId
    }

    /// The stored record's id for these parameters.
    public static func recordId(
        sobjectType: String, formFactor: String?, layoutType: String?, mode: String?, recordTypeId: String?
    ) -> String {
        ([sobjectType] + [formFactor, layoutType, mode, recordTypeId].map { $0 ?? "null" }).joined(separator: "-")
    }

    /// Fetches the layout.
    public mutating func startFetch(_ context: SyncDownContext, maxTimeStamp: Int64) async throws -> [JSONValue] {
        let layout = try await context.requireClient().layout(
            type: sobjectType, formFactor: formFactor, layoutType: layoutType, mode: mode, recordTypeId: recordTypeId)
        let id = Self.recordId(
            sobjectType: sobjectType, formFactor: formFactor, layoutType: layoutType, mode: mode,
            recordTypeId: recordTypeId)
        totalSize = 1
        return [try Self.record(layout, id: id, what: "The layout of \(sobjectType)")]
    }

}
