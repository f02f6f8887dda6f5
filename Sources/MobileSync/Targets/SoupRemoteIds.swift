/// The ids a target would fetch now into one of its soups: what ghost cleaning of that soup
/// keeps, for targets that write more than the sync's soup (parent/children, briefcase).
public struct SoupRemoteIds: Hashable, Sendable {
    /// The soup.
    public var soupName: String
    /// The soup's records' id field.
    public var idFieldName: String
    /// For the children soup of a parent/children target, the child field holding the parent's
    /// id: a parent with a dirty child is never a ghost, so the child's change keeps its parent.
    public var parentIdFieldName: String?
    /// Every id the target returns now for this soup.
    public var remoteIds: Set<String>

    /// Creates the remote ids of one soup.
    public init(soupName: String, idFieldName: String, parentIdFieldName: String? = nil, remoteIds: Set<String>) {
        self.soupName = soupName
        self.idFieldName = idFieldName
        self.parentIdFieldName = parentIdFieldName
        self.remoteIds = remoteIds
    }
}
