public import LosslessJSON

/// What the server said about one record of a sync up: what the sync up then does locally.
public enum SyncUpOutcome: Hashable, Sendable {
    /// Created (or upserted): the server id replaces the local id and the record is cleaned.
    case created(serverId: String)
    /// Nothing was written: a clean record the server lost takes over the server record that
    /// now holds its external id (decision 0323). The server id and `serverFields`, the
    /// server's values as read, replace the record's own, which are stale, and it is cleaned;
    /// other clean copies of that server record are merged into it first. A record changed
    /// while the request was out keeps its change and sends it as an update.
    case adopted(serverId: String, serverFields: [String: JSONValue])
    /// Updated: the record is cleaned.
    case updated
    /// Deleted on the server, already gone there, or never sent because it was created and
    /// deleted locally: the record is removed from the soup.
    case deleted
    /// An update found no server record (HTTP 404, `ENTITY_IS_DELETED`,
    /// `INVALID_CROSS_REFERENCE_KEY`): OVERWRITE creates it again, LEAVE_IF_CHANGED leaves it.
    case notFound
    /// The server refused the record: `error` (`{"errorCode"|"statusCode", "message",
    /// "fields"}` or the raw error body) goes to `__last_error__` and the record stays dirty.
    case failed(error: JSONValue)
    /// Nothing was sent: the record is not dirty, or LEAVE_IF_CHANGED found a newer server copy.
    case skipped

    /// The `__last_error__` text for a failure, as Mobile Sync stores it (JSON text).
    public var lastError: String? {
        guard case .failed(let error) = self else { return nil }
        return error.string ?? error.serializedString
    }
}
