import Determinism
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import Soups
import SyncTesting
import Testing

/// `SyncStoreManager`: stores per user and global stores side by side, one sync manager per
/// store, and logout.
@Suite(.timeLimit(.minutes(5))) struct SyncStoreManagerTests {
    static let alice = StoreOwner(orgId: "00Dorg", userId: "005alice")
    static let bob = StoreOwner(orgId: "00Dorg", userId: "005bob")
    static let specs = [IndexSpec(path: "Id", type: .string), IndexSpec(path: "Name", type: .string)]

    static func manager(_ directory: TemporaryDirectory) -> SyncStoreManager {
        SyncStoreManager(
            rootDirectory: directory.appending("stores"),
            clock: ManualWallClock(WallTime(millisecondsSinceEpoch: 1_800_000_000_000), tick: .milliseconds(1)),
            logger: .discarding)
    }

    static func names(_ store: SyncStore, _ soup: String) throws -> [String] {
        try store.soups.query(.all(soup, orderPath: "Name", pageSize: 100)).compactMap { $0["Name"]?.string }
    }

    @Test func usersAndGlobalStoresLiveSideBySideAndOpenOnce() throws {
        let directory = try TemporaryDirectory("store-manager")
        defer { directory.remove() }
        let stores = Self.manager(directory)
        let community = StoreOwner(orgId: "00Dorg", userId: "005alice", communityId: "0DBsite")
        for (store, name) in [
            (try stores.store(for: Self.alice), "alice's"), (try stores.store(for: Self.bob), "bob's"),
            (try stores.store(for: community), "alice's site"), (try stores.globalStore(), "everyone's"),
            (try stores.store("drafts", for: Self.alice), "alice's drafts"),
        ] {
            try store.soups.registerSoup("notes", indexSpecs: Self.specs)
            try store.soups.create("notes", ["Name": .string(name)])
        }
        #expect(try Self.names(stores.store(for: Self.alice), "notes") == ["alice's"])
        #expect(try Self.names(stores.store(for: community), "notes") == ["alice's site"])
        #expect(try Self.names(stores.globalStore(), "notes") == ["everyone's"])
        #expect(try stores.store(for: Self.alice) === stores.store(for: Self.alice), "a store is opened once")
        #expect(stores.storeNames(in: .user(Self.alice)) == ["drafts", "smartstore"])
        #expect(stores.storeNames(in: .global) == ["smartstore"])
        let syncs = try stores.syncManager(for: Self.alice, client: nil)
        #expect(try stores.syncManager(for: Self.alice, client: nil) === syncs, "one sync manager per store")
        #expect(try stores.syncManager(for: Self.bob, client: nil) !== syncs)
    }

    @Test func logoutStopsTheUsersRunningSyncAndRemovesOnlyTheirStores() async throws {
        let directory = try TemporaryDirectory("store-manager-logout")
        defer { directory.remove() }
        let stores = Self.manager(directory)
        let aliceStore = try stores.store(for: Self.alice)
        try aliceStore.soups.registerSoup("accounts", indexSpecs: Self.specs)
        let bobStore = try stores.store(for: Self.bob)
        try bobStore.soups.registerSoup("accounts", indexSpecs: Self.specs)
        try bobStore.soups.create("accounts", ["Name": "Bob's"])
        try stores.globalStore().soups.registerSoup("accounts", indexSpecs: Self.specs)
        let held = PagedTestTarget.held(count: 6)
        let syncs = try stores.syncManager(for: Self.alice, client: nil, targets: held.registry)
        let aliceFolder = try stores.directory(of: SyncStoreManager.defaultStoreName, in: .user(Self.alice))
        let run = Task {
            try await syncs.syncDown(target: try PagedTestTarget.descriptor, soupName: "accounts", name: "accounts")
        }
        await held.started.wait()
        let logout = Task { try await stores.removeAllStores(for: Self.alice) }
        // Sleeping, not yielding: a spin would hold one of the few cooperative threads.
        while !syncs.isStopping { try await Task.sleep(for: .milliseconds(5)) }
        #expect(FileManager.default.fileExists(atPath: aliceFolder.path), "files stay until the sync has stopped")
        await held.proceed.open()
        let final = try await run.value
        try await logout.value
        #expect(final.status == .stopped)
        #expect(syncs.isStopped)
        #expect(!FileManager.default.fileExists(atPath: aliceFolder.path))
        #expect(stores.storeNames(in: .user(Self.alice)).isEmpty)
        #expect(try Self.names(bobStore, "accounts") == ["Bob's"], "another user's store is untouched")
        #expect(stores.storeNames(in: .global) == ["smartstore"])
        // A new login starts clean, with a new store and a new sync manager.
        let fresh = try stores.store(for: Self.alice)
        #expect(fresh !== aliceStore)
        #expect(try fresh.soups.soupNames().isEmpty)
        #expect(try fresh.syncStates().isEmpty)
        #expect(try stores.syncManager(for: Self.alice, client: nil) !== syncs)
    }

    @Test(arguments: ["", "..", "a/b", "."])
    func namesThatCouldLeaveTheRootAreRefused(name: String) throws {
        let directory = try TemporaryDirectory("store-manager-names")
        defer { directory.remove() }
        let stores = Self.manager(directory)
        let byName = #expect(throws: SyncError.self) { try stores.store(name, for: Self.alice) }
        #expect(byName?.code == .invalidName)
        let byOwner = #expect(throws: SyncError.self) {
            try stores.store(for: StoreOwner(orgId: "00Dorg", userId: name))
        }
        #expect(byOwner?.code == .invalidName)
        #expect(!FileManager.default.fileExists(atPath: directory.appending("stores").path))
    }
}
