public import LosslessJSON

/// Fetches and caches sObject describe results: Mobile SDK's `MetadataSyncManager` on the
/// journal.
///
/// Describe results live in the soup `sfdcMetadata` (registered on first use, indexed on
/// `Id`), one record per type whose `Id` is the type name, written by a metadata sync down
/// named `sfdcMetadata/<type>` that later fetches re-run.
///
/// ```swift
/// let metadata = MetadataSyncManager(manager: manager)
/// let account = try await metadata.fetchMetadata(objectType: "Account", fetchMode: .serverFirst)
/// ```
public struct MetadataSyncManager: Sendable {
    /// The soup describe results are cached in.
    public static let soupName = "sfdcMetadata"

    /// The sync manager that runs the metadata syncs.
    public let manager: SyncManager

    /// Creates a metadata manager over `manager`'s store and connection.
    public init(manager: SyncManager) {
        self.manager = manager
    }

    /// The describe result of `objectType`.
    ///
    /// - Returns: the describe, or `nil` under ``CachedFetchMode/cacheOnly`` when none is cached.
    /// - Throws: ``SyncError/Code/fetchFailed`` when the server was needed and its sync failed
    ///   with nothing cached; what creating the sync throws.
    public func fetchMetadata(objectType: String, fetchMode: CachedFetchMode) async throws -> JSONValue? {
        let target = try SyncDownTargetDescriptor(.metadata(sobjectType: objectType))
        return try await CachedRecordFetch(manager: manager, soupName: Self.soupName)
            .fetch(id: objectType, target: target, syncName: "\(Self.soupName)/\(objectType)", mode: fetchMode)
    }

    /// The describe of `objectType` as a ``Metadata`` model: what
    /// ``fetchMetadata(objectType:fetchMode:)`` returns, read into Mobile SDK's model.
    ///
    /// - Returns: the metadata, or `nil` under ``CachedFetchMode/cacheOnly`` when none is cached.
    /// - Throws: what ``fetchMetadata(objectType:fetchMode:)`` throws.
    public func metadata(objectType: String, fetchMode: CachedFetchMode) async throws -> Metadata? {
        try await fetchMetadata(objectType: objectType, fetchMode: fetchMode).map(Metadata.init(json:))
    }
}
