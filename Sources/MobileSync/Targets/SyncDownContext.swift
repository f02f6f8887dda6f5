public import Logging
public import SalesforceAPI
public import Soups

/// What a running target may use: which sync it serves, the store's soups, and the REST client.
public struct SyncDownContext: Sendable {
    /// The sync being run.
    public var syncId: Int64
    /// The soup the sync writes.
    public var soupName: String
    /// The store's soups, for targets that read local records (Refresh).
    public var soups: SoupStore
    /// The REST client, or `nil` when the manager has none (custom targets may not need one).
    public var client: SalesforceClient?
    /// Where targets log.
    public var logger: Logger
    /// Every record modified at or before this instant, epoch milliseconds, was seen by a
    /// completed run of the sync (``SyncState/settledThrough``); `-1` when none is known. A
    /// reSync window need not open before it (``ReSyncWindow/init(maxTimeStamp:overlapSeconds:settledThrough:)``).
    public var settledThrough: Int64 = -1

    /// Creates a context.
    public init(syncId: Int64, soupName: String, soups: SoupStore, client: SalesforceClient?, logger: Logger) {
        self.syncId = syncId
        self.soupName = soupName
        self.soups = soups
        self.client = client
        self.logger = logger
    }

    /// The REST client.
    ///
    /// - Throws: ``SyncError/Code/notConnected`` when the manager was made without one.
    public func requireClient() throws(SyncError) -> SalesforceClient {
        guard let client else {
            throw SyncError(.notConnected, "Sync \(syncId) needs a Salesforce connection, and none was given.")
        }
        return client
    }
}
