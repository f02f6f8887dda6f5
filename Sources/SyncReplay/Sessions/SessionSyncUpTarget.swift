/// The built-in sync-up targets a session can use.
public enum SessionSyncUpTarget: String, Codable, Hashable, Sendable, CaseIterable {
    /// One REST call per record.
    case singleRecord
    /// Composite batch requests, up to 25 records each.
    case batch
    /// sObject Collections, up to 200 records each.
    case collection
}
