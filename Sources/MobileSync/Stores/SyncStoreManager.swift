public import Determinism
public import EventJournal
public import Foundation
public import Logging
public import SalesforceAPI
import Synchronization

/// The stores of an app, as Mobile SDK's store manager keeps them: stores per user (keyed by
/// org, user and community) and global stores, each opened once, each with one ``SyncManager``
/// made on demand, and all of a user's removed at logout.
///
/// ```swift
/// let stores = SyncStoreManager(rootDirectory: appSupport, clock: SystemWallClock(), logger: logger)
/// let owner = StoreOwner(orgId: "00D…", userId: "005…")
/// let store = try stores.store(for: owner)                  // getSmartStore(account)
/// let syncs = try stores.syncManager(for: owner, client: client)
/// …
/// // Logout: running syncs end STOPPED (journaled), then the user's files and keys are gone.
/// try await stores.removeAllStores(for: owner)
/// ```
///
/// Files live under the root: a user's stores in `users/<org>/<user>/<community or
/// internal>/<name>`, global ones in `global/<name>`. A store's encryption keys are wrapped in
/// its own files, so removing the files removes them; the app's own key (`JournalOptions.encryption`)
/// is the app's to delete from its keychain.
public final class SyncStoreManager: Sendable {
    /// The name of a store when none is given: Mobile SDK's default store name.
    public static let defaultStoreName = "smartstore"

    /// Where a store sits: a user's, or global.
    public enum Scope: Hashable, Sendable {
        /// A store of one user.
        case user(StoreOwner)
        /// A store shared by every user of the app.
        case global
    }

    /// What the manager opens for one store.
    private struct Opened: Sendable {
        let store: SyncStore
        var manager: SyncManager?
    }

    private struct Key: Hashable {
        let scope: Scope
        let name: String
    }

    /// The folder every store lives under.
    public let rootDirectory: URL
    private let clock: any WallClock
    private let logger: Logger
    private let journalOptions: @Sendable (Scope, String) -> JournalOptions
    private let opened = Mutex<[Key: Opened]>([:])

    /// Creates a manager of the stores under `rootDirectory`; nothing is opened yet.
    ///
    /// - Parameters:
    ///   - rootDirectory: the folder the stores live under (created on first use).
    ///   - clock: stamps the stores' entries and their sync managers' states.
    ///   - journalOptions: the options of each store, by scope and name; the default is the
    ///     library's (`JournalOptions()`): set `encryption` here to encrypt a user's stores.
    ///   - logger: where the stores and their sync managers log.
    public init(
        rootDirectory: URL, clock: any WallClock,
        journalOptions: @escaping @Sendable (Scope, String) -> JournalOptions = { _, _ in JournalOptions() },
        logger: Logger
    ) {
        self.rootDirectory = rootDirectory
        self.clock = clock
        self.journalOptions = journalOptions
        self.logger = logger
    }

    /// The folder of the store named `name` in `scope`.
    ///
    /// - Throws: ``SyncError/Code/invalidName`` for a name or id that cannot name a folder.
    public func directory(of name: String, in scope: Scope) throws -> URL {
        try StoreOwner.validate(component: name, named: "store name")
        return components(of: scope).reduce(rootDirectory) { $0.appendingPathComponent($1) }
            .appendingPathComponent(name)
    }

    private func components(of scope: Scope) -> [String] {
        switch scope {
        case .user(let owner): owner.pathComponents
        case .global: ["global"]
        }
    }

    /// The user's store named `name`, opened (and created) on first use, the same instance after.
    ///
    /// - Throws: ``SyncError/Code/invalidName``; `JournalError` when the store cannot be opened.
    public func store(_ name: String = defaultStoreName, for owner: StoreOwner) throws -> SyncStore {
        try owner.validate()
        return try store(name, in: .user(owner))
    }

    /// The global store named `name` (Mobile SDK's `getGlobalSmartStore`).
    ///
    /// - Throws: ``SyncError/Code/invalidName``; `JournalError` when the store cannot be opened.
    public func globalStore(_ name: String = defaultStoreName) throws -> SyncStore {
        try store(name, in: .global)
    }

    /// The store named `name` in `scope`, opened once.
    public func store(_ name: String, in scope: Scope) throws -> SyncStore {
        if case .user(let owner) = scope { try owner.validate() }
        let directory = try directory(of: name, in: scope)
        let key = Key(scope: scope, name: name)
        return try opened.withLock { opened in
            if let existing = opened[key] { return existing.store }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let store = try SyncStore(
                directory: directory, clock: clock, options: journalOptions(scope, name), logger: logger)
            opened[key] = Opened(store: store)
            return store
        }
    }

    /// The sync manager of the user's store named `name`: made on first use with `client` and
    /// the registries, the same instance after (Mobile SDK's `SyncManager.getInstance`).
    ///
    /// - Throws: what ``store(_:for:)`` and `SyncManager.init` throw.
    public func syncManager(
        _ name: String = defaultStoreName, for owner: StoreOwner, client: SalesforceClient?,
        targets: SyncDownTargetRegistry = SyncDownTargetRegistry(),
        syncUpTargets: SyncUpTargetRegistry = SyncUpTargetRegistry()
    ) throws -> SyncManager {
        try syncManager(name, in: .user(owner), client: client, targets: targets, syncUpTargets: syncUpTargets)
    }

    /// The sync manager of the store named `name` in `scope`; see ``syncManager(_:for:client:targets:syncUpTargets:)``.
    public func syncManager(
        _ name: String, in scope: Scope, client: SalesforceClient?,
        targets: SyncDownTargetRegistry = SyncDownTargetRegistry(),
        syncUpTargets: SyncUpTargetRegistry = SyncUpTargetRegistry()
    ) throws -> SyncManager {
        let store = try store(name, in: scope)
        let key = Key(scope: scope, name: name)
        return try opened.withLock { opened in
            if let manager = opened[key]?.manager { return manager }
            let manager = try SyncManager(
                store: store, client: client, targets: targets, syncUpTargets: syncUpTargets, clock: clock,
                logger: logger)
            opened[key, default: Opened(store: store)].manager = manager
            return manager
        }
    }

    /// The names of the stores in `scope` that exist on disk, sorted.
    public func storeNames(in scope: Scope) -> [String] {
        let folder = components(of: scope).reduce(rootDirectory) { $0.appendingPathComponent($1) }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }

    /// Removes the store named `name` in `scope` (Mobile SDK's `removeSmartStore`): stops its
    /// sync manager and waits for its running syncs to end STOPPED (journaled), releases the
    /// manager's handles on it, then deletes its files, keys included.
    ///
    /// Call it when nothing else of the app holds the store: a `SyncStore` the app keeps would
    /// read files that no longer exist.
    ///
    /// - Throws: ``SyncError/Code/invalidName``; a file error when the files cannot be deleted.
    public func removeStore(_ name: String, in scope: Scope) async throws {
        let directory = try directory(of: name, in: scope)
        let removed = opened.withLock { $0.removeValue(forKey: Key(scope: scope, name: name)) }
        await removed?.manager?.stopAndWait()
        if FileManager.default.fileExists(atPath: directory.path) {
            try FileManager.default.removeItem(at: directory)
        }
        logger.info("Store removed", metadata: ["store.name": "\(name)", "store.scope": "\(scope)"])
    }

    /// Removes every store of `owner` (logout: Mobile SDK's `removeAllUserStores`); the other
    /// users' stores and the global ones stay. A later ``store(_:for:)`` starts a new, empty store.
    ///
    /// - Throws: what ``removeStore(_:in:)`` throws.
    public func removeAllStores(for owner: StoreOwner) async throws {
        try owner.validate()
        let scope = Scope.user(owner)
        let names = Set(storeNames(in: scope)).union(
            opened.withLock { $0.keys.filter { $0.scope == scope }.map(\.name) })
        for name in names.sorted() { try await removeStore(name, in: scope) }
        let folder = components(of: scope).reduce(rootDirectory) { $0.appendingPathComponent($1) }
        if FileManager.default.fileExists(atPath: folder.path) { try FileManager.default.removeItem(at: folder) }
    }

    /// Removes every global store.
    ///
    /// - Throws: what ``removeStore(_:in:)`` throws.
    public func removeAllGlobalStores() async throws {
        for name in storeNames(in: .global) { try await removeStore(name, in: .global) }
    }
}
