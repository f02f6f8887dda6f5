/// Makes running targets from descriptors: the built-in ones, and custom ones registered by name.
///
/// A custom target's name is its descriptor's registry key: the `iOSImpl` of its JSON, or the
/// last dot-separated part of `androidImpl` (docs/decisions/0310), so a config file written for
/// Mobile SDK can name a Swift target.
///
/// ```swift
/// var targets = SyncDownTargetRegistry()
/// targets.register("AccountsTarget") { descriptor in AccountsTarget(descriptor) }
/// let manager = try SyncManager(store: store, client: client, targets: targets, clock: clock, logger: logger)
/// ```
public struct SyncDownTargetRegistry: Sendable {
    /// Makes a custom target from its descriptor (whose `otherFields` hold its own settings).
    public typealias Factory = @Sendable (SyncDownTargetDescriptor) throws -> any SyncDownTarget

    private var factories: [String: Factory] = [:]

    /// Creates a registry that knows only the built-in targets.
    public init() {}

    /// Registers (or replaces) the custom target named `key`.
    public mutating func register(_ key: String, factory: @escaping Factory) {
        factories[key] = factory
    }

    /// The names of the registered custom targets, sorted.
    public var registeredKeys: [String] {
        factories.keys.sorted()
    }

    /// A running target for `descriptor`.
    ///
    /// - Throws: ``SyncError/Code/unknownTarget`` for a custom target nobody registered, or what
    ///   the custom factory throws.
    public func makeTarget(for descriptor: SyncDownTargetDescriptor) throws -> any SyncDownTarget {
        switch descriptor.kind {
        case .soql: return try SOQLSyncDownTarget(descriptor)
        case .sosl: return try SOSLSyncDownTarget(descriptor)
        case .mru: return try MRUSyncDownTarget(descriptor)
        case .refresh: return try RefreshSyncDownTarget(descriptor)
        case .parentChildren: return try ParentChildrenSyncDownTarget(descriptor)
        case .briefcase: return try BriefcaseSyncDownTarget(descriptor)
        case .metadata: return try MetadataSyncDownTarget(descriptor)
        case .layout: return try LayoutSyncDownTarget(descriptor)
        case .custom(let key):
            guard let factory = factories[key] else {
                throw SyncError(.unknownTarget, "No custom sync down target is registered under \"\(key)\".")
            }
            return try factory(descriptor)
        }
    }
}
