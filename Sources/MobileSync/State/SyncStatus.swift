/// Where a sync is in its life, as persisted in `status`.
///
/// The raw values are the strings Mobile SDK persists.
public enum SyncStatus: String, Hashable, Sendable, CaseIterable {
    /// Created and never run.
    case new = "NEW"
    /// Queued or running.
    case running = "RUNNING"
    /// Finished: every page was applied.
    case done = "DONE"
    /// Ended by an error; ``SyncState/error`` says which.
    case failed = "FAILED"
    /// Ended by a stop request or by a restart of the app while it ran.
    case stopped = "STOPPED"

    /// Whether the sync has ended (DONE, FAILED or STOPPED).
    public var isTerminal: Bool {
        switch self {
        case .done, .failed, .stopped: true
        case .new, .running: false
        }
    }
}
