/// The direction of a sync, as persisted in `type`.
public enum SyncType: String, Hashable, Sendable, CaseIterable {
    /// From the server into a soup.
    case syncDown
    /// From a soup's dirty records to the server.
    case syncUp

    /// The words Mobile SDK's error messages use for the type ("sync down", "sync up").
    var wording: String {
        switch self {
        case .syncDown: "sync down"
        case .syncUp: "sync up"
        }
    }
}
