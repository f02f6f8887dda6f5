public import SalesforceAPI

/// Makes sync-up targets from descriptors: the three built-in ones, and custom ones registered
/// by name (the descriptor's registry key, as for sync down: decision 0310).
///
/// ```swift
/// var syncUpTargets = SyncUpTargetRegistry()
/// syncUpTargets.register("AuditedTarget") { descriptor, client in AuditedTarget(descriptor, client) }
/// ```
public struct SyncUpTargetRegistry: Sendable {
    /// Makes a custom target from its descriptor and the manager's connection, if any.
    public typealias Factory = @Sendable (SyncUpTargetDescriptor, SalesforceClient?) throws -> any SyncUpTarget

    private var factories: [String: Factory] = [:]

    /// Creates a registry that knows only the built-in targets.
    public init() {}

    /// Registers (or replaces) the custom target named `key`.
    public mutating func register(_ key: String, factory: @escaping Factory) {
        factories[key] = factory
    }

    /// A target for `descriptor`.
    ///
    /// - Throws: ``SyncError/Code/notConnected`` for a built-in target without a connection,
    ///   ``SyncError/Code/unknownTarget`` for a custom target nobody registered, or what the
    ///   custom factory throws.
    public func makeTarget(for descriptor: SyncUpTargetDescriptor, client: SalesforceClient?) throws
        -> any SyncUpTarget
    {
        if case .custom(let key) = descriptor.kind {
            guard let factory = factories[key] else {
                throw SyncError(.unknownTarget, "No custom sync up target is registered under \"\(key)\".")
            }
            return try factory(descriptor, client)
        }
        guard let client else {
            throw SyncError(.notConnected, "Sync up needs a Salesforce connection and the sync manager has none.")
        }
        switch descriptor.kind {
        case .parentChildren:
            throw SyncError(
                .wrongType,
                "A parent/children sync up sends trees of records, not single records; run it through SyncManager.")
        case .singleRecord: return RESTSyncUpTarget(descriptor, client: client)
        case .batch: return CompositeSyncUpTarget(descriptor, client: client)
        case .collection, .custom: return CollectionSyncUpTarget(descriptor, client: client)
        }
    }
}
