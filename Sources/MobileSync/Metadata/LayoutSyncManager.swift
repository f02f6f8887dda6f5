public import LosslessJSON

/// Fetches and caches UI API record layouts: Mobile SDK's `LayoutSyncManager` on the journal.
///
/// Layouts live in the soup `sfdcLayouts` (registered on first use, indexed on `Id`), one
/// record per combination of parameters, written by a layout sync down named
/// `sfdcLayouts/<record id>` that later fetches re-run.
///
/// ```swift
/// let layouts = LayoutSyncManager(manager: manager)
/// let layout = try await layouts.fetchLayout(objectType: "Account", layoutType: "Compact", mode: .cacheFirst)
/// ```
public struct LayoutSyncManager: Sendable {
    /// The soup layouts are cached in.
    public static let soupName = "sfdcLayouts"

    /// The sync manager that runs the layout syncs.
    public let manager: SyncManager

    /// Creates a layout manager over `manager`'s store and connection.
    public init(manager: SyncManager) {
        self.manager = manager
    }

    /// The layout of `objectType` for these parameters, as the UI API returns it plus the cache's
    /// `Id` and bookkeeping fields.
    ///
    /// - Parameters: the UI API's `formFactor` (`Large`, `Medium`, `Small`), `layoutType`
    ///   (`Full`, `Compact`), `mode` (`Create`, `Edit`, `View`) and `recordTypeId`, each left
    ///   out when `nil`; `fetchMode` says where to look.
    /// - Returns: the layout, or `nil` under ``CachedFetchMode/cacheOnly`` when none is cached.
    /// - Throws: ``SyncError/Code/fetchFailed`` when the server was needed and its sync failed
    ///   with nothing cached; what creating the sync throws.
    public func fetchLayout(
        objectType: String, formFactor: String? = nil, layoutType: String? = nil, mode: String? = nil,
        recordTypeId: String? = nil, fetchMode: CachedFetchMode
    ) async throws -> JSONValue? {
        let target = try SyncDownTargetDescriptor(
            .layout(
                sobjectType: objectType, formFactor: formFactor, layoutType: layoutType, mode: mode,
                recordTypeId: recordTypeId))
        let id = LayoutSyncDownTarget.recordId(
            sobjectType: objectType, formFactor: formFactor, layoutType: layoutType, mode: mode,
            recordTypeId: recordTypeId)
        return try await CachedRecordFetch(manager: manager, soupName: Self.soupName)
            .fetch(id: id, target: target, syncName: "\(Self.soupName)/\(id)", mode: fetchMode)
    }

    /// The layout of `objectType` for these parameters as a ``Layout`` model: what
    /// ``fetchLayout(objectType:formFactor:layoutType:mode:recordTypeId:fetchMode:)`` returns,
    /// read into Mobile SDK's model (its callback's `Layout`).
    ///
    /// - Returns: the layout, or `nil` under ``CachedFetchMode/cacheOnly`` when none is cached.
    /// - Throws: what ``fetchLayout(objectType:formFactor:layoutType:mode:recordTypeId:fetchMode:)`` throws.
    public func layout(
        objectType: String, formFactor: String? = nil, layoutType: String? = nil, mode: String? = nil,
        recordTypeId: String? = nil, fetchMode: CachedFetchMode
    ) async throws -> Layout? {
        try await fetchLayout(
            objectType: objectType, formFactor: formFactor, layoutType: layoutType, mode: mode,
            recordTypeId: recordTypeId, fetchMode: fetchMode
        ).map(Layout.init(json:))
    }
}
