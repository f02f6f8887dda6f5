extension SyncError {
    // The messages below are Mobile SDK's own texts (Android SyncManager), kept word for word so
    // apps and scripts that match on them keep working.

    /// "Failed to create sync down: there is already a sync with name:<name>" (or "sync up").
    public static func duplicateName(_ name: String, type: SyncType) -> SyncError {
        SyncError(.duplicateName, "Failed to create \(type.wording): there is already a sync with name:\(name)")
    }

    /// "Sync <id or name> does not exist".
    public static func syncNotFound(_ idOrName: String) -> SyncError {
        SyncError(.syncNotFound, "Sync \(idOrName) does not exist")
    }

    /// "Cannot run runSync <id> - sync is still running".
    public static func syncRunning(id: Int64) -> SyncError {
        SyncError(.syncRunning, "Cannot run runSync \(id) - sync is still running")
    }

    /// "Cannot run runSync <id> - sync is still running in another process": Mobile SDK's text,
    /// then who runs it, for a sync whose lease another process (or another manager) holds.
    public static func syncRunningElsewhere(id: Int64) -> SyncError {
        SyncError(.syncRunning, "Cannot run runSync \(id) - sync is still running in another process")
    }

    /// "sync manager has state:<STATE>".
    public static func managerStopped(state: String) -> SyncError {
        SyncError(.managerStopped, "sync manager has state:\(state)")
    }

    /// "Cannot run cleanResyncGhosts:<id>: wrong type:<type>".
    public static func ghostCleaningNeedsSyncDown(id: Int64, type: SyncType) -> SyncError {
        SyncError(.wrongType, "Cannot run cleanResyncGhosts:\(id): wrong type:\(type.rawValue)")
    }
}
