/// The user a store belongs to, as Mobile SDK keys user stores: the org, the user and, for an
/// Experience Cloud site, the community.
public struct StoreOwner: Hashable, Sendable {
    /// The org's id (`00D…`).
    public var orgId: String
    /// The user's id (`005…`).
    public var userId: String
    /// The community's id, `nil` for the internal org.
    public var communityId: String?

    /// Creates an owner.
    public init(orgId: String, userId: String, communityId: String? = nil) {
        self.orgId = orgId
        self.userId = userId
        self.communityId = communityId
    }

    /// The owner's folder under the manager's root, one level per key; the internal org's
    /// stores sit under `internal`.
    var pathComponents: [String] {
        ["users", orgId, userId, communityId ?? "internal"]
    }

    /// Refuses ids that could name another folder: empty, `.`, `..`, or holding a `/`.
    func validate() throws(SyncError) {
        for (name, value) in [("orgId", orgId), ("userId", userId), ("communityId", communityId ?? "x")] {
            try StoreOwner.validate(component: value, named: name)
        }
    }

    static func validate(component value: String, named name: String) throws(SyncError) {
        guard !value.isEmpty, value != ".", value != "..", !value.contains("/"), !value.contains("\0") else {
            throw SyncError(
                .invalidName, "The \(name) \"\(value)\" cannot name a store folder: it is empty or holds / or ..")
        }
    }
}
