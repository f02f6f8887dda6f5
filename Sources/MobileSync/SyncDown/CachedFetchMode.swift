import LosslessJSON
import Soups

/// Where ``LayoutSyncManager`` and ``MetadataSyncManager`` look for what they are asked,
/// Mobile SDK's `CACHE_ONLY`, `CACHE_FIRST` and `SERVER_FIRST`.
public enum CachedFetchMode: String, Sendable, Hashable, CaseIterable {
    /// The soup only; `nil` when it has nothing.
    case cacheOnly = "CACHE_ONLY"
    /// The soup, or the server when the soup has nothing.
    case cacheFirst = "CACHE_FIRST"
    /// The server (a sync down, OVERWRITE), then the soup; the soup's copy when the sync fails.
    case serverFirst = "SERVER_FIRST"
}

/// One record kept in a soup by a named sync down: the common part of the layout and metadata
/// managers.
struct CachedRecordFetch {
    let manager: SyncManager
    let soupName: String

    /// The record `id`, from the soup or from the sync `syncName` of `target`, per `mode`.
    ///
    /// The sync is named so that fetching the same record again re-runs it instead of adding
    /// a sync each time (Mobile SDK creates an unnamed sync per fetch).
    func fetch(id: String, target: SyncDownTargetDescriptor, syncName: String, mode: CachedFetchMode) async throws
        -> JSONValue?
    {
        try manager.store.soups.registerSoup(soupName, indexSpecs: [IndexSpec(path: "Id", type: .string)])
        if mode != .serverFirst, let cached = try cached(id) { return cached }
        guard mode != .cacheOnly else { return nil }
        let state =
            if let existing = try await manager.getSyncStatus(name: syncName) {
                try await manager.reSync(id: existing.id)
            } else {
                try await manager.syncDown(
                    target: target, options: SyncOptions(mergeMode: .overwrite), soupName: soupName, name: syncName)
            }
        if let record = try cached(id), state.status == .done || mode == .serverFirst { return record }
        throw SyncError(.fetchFailed, "Fetching \(id) ended \(state.status.rawValue): \(state.error)")
    }

    private func cached(_ id: String) throws -> JSONValue? {
        guard let entryId = try manager.store.soups.lookupSoupEntryId(soupName, path: "Id", value: .string(id)) else {
            return nil
        }
        return try manager.store.soups.retrieve(soupName, ids: [entryId]).first
    }
}
