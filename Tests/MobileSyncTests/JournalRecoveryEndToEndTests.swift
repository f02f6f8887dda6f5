import Determinism
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import SalesforceAPI
import SalesforceSimulator
import Soups
import SyncTesting
import Testing

/// Issue 29: a store whose journal was deleted keeps its data through `recoverJournal`: the
/// same soups, dirty records, pending uploads and sync states, and the next sync up sends the
/// server exactly what the undamaged store sends. Issue 49: so does an encrypted store, with
/// its key (decision 0026).
@Suite struct JournalRecoveryEndToEndTests {
    /// One store and its own simulator, both built the same way every time.
    struct Twin {
        let directory: URL
        let simulator: SalesforceSimulator
        let server: SimulatorServer
        /// The store's key; `nil` for a plaintext store.
        let key: StoreKey?
        let clock = ManualWallClock(WallTime(millisecondsSinceEpoch: 1_800_000_000_000), tick: .milliseconds(1))

        static func make(in root: TemporaryDirectory, _ name: String, key: StoreKey?) async throws -> Twin {
            let simulator = try SalesforceSimulator(
                configuration: SalesforceSimulator.Configuration(
                    data: SyncHarness.data(accounts: 3, recent: []), seed: 42,
                    clock: .logical(start: SalesforceSimulator.Configuration.logicalStartDefault)),
                sleepClock: ImmediateClock(), logger: .discarding)
            let server = try await SimulatorServer.start(simulator, logger: .discarding)
            return Twin(directory: root.appending(name), simulator: simulator, server: server, key: key)
        }

        var options: JournalOptions {
            var options = JournalOptions()
            options.encryption = key
            return options
        }

        func open() throws -> SyncStore {
            try SyncStore(
                directory: directory, clock: clock, idGenerator: IncrementingIDGenerator(first: 1_000),
                options: options, logger: .discarding)
        }

        func manager(_ store: SyncStore) throws -> SyncManager {
            let client = SalesforceClient(
                credentials: SalesforceCredentials(
                    instanceURL: server.url, accessToken: simulator.accessToken,
                    refreshToken: "simulator-refresh-token", clientID: "test-client"),
                retryPolicy: .none, clock: ImmediateClock(), randomSeed: 7, logger: .discarding)
            return try SyncManager(store: store, client: client, clock: clock, logger: .discarding)
        }

        /// Synced records, local edits, a create whose upload answer was lost (a pending
        /// upload), and a sync down and a sync up in the sync states.
        func buildHistory() async throws {
            let store = try open()
            try store.soups.registerSoup(SyncHarness.soup, indexSpecs: [IndexSpec(path: "Id", type: .string)])
            let manager = try manager(store)
            try await manager.syncDown(
                target: try SyncDownTargetDescriptor(.soql(query: "SELECT Id, Name, LastModifiedDate FROM Account")),
                soupName: SyncHarness.soup, name: "down")
            let first = try #require(
                try store.soups.lookupSoupEntryId(
                    SyncHarness.soup, path: "Id", value: .string(SyncHarness.accountId(0))))
            _ = try store.soups.updateLocally(SyncHarness.soup, entryId: first, changes: ["Name": "Renamed"])
            _ = try store.soups.createLocally(SyncHarness.soup, ["Name": "Created", "attributes": ["type": "Account"]])
            simulator.setFaultPlan(
                FaultPlan(rules: [
                    FaultRule(method: "POST", path: "/services/data/v66.0/composite/sobjects", drop: .afterCommit)
                ]))
            _ = try await manager.syncUp(
                options: SyncOptions(fieldlist: ["Name"]), soupName: SyncHarness.soup, name: "up")
            simulator.setFaultPlan(FaultPlan())
            _ = try store.soups.createLocally(SyncHarness.soup, ["Name": "Later", "attributes": ["type": "Account"]])
            try store.journal.close()
        }

        /// What a user sees: records, dirty records, sync states and pending uploads.
        func contents(_ store: SyncStore) throws -> [JSONValue] {
            let records = try store.soups.query(
                QuerySpec.all(SyncHarness.soup, orderPath: "_soupEntryId", pageSize: 1_000))
            let states = try store.syncStates()
            var contents: [JSONValue] = [.array(records), .array(try store.soups.dirtyRecords(SyncHarness.soup))]
            for state in states {
                contents.append(state.json)
                contents.append(.array(try store.pendingUploads(syncId: state.id)))
            }
            return contents
        }

        /// Runs sync `up` again; returns the requests the server received for it.
        func syncUpAgain() async throws -> [JSONValue] {
            let store = try open()
            let before = simulator.requestLog().count
            _ = try await manager(store).reSync(name: "up")
            #expect(try store.journal.verify().isConsistent)
            try store.journal.close()
            return Array(simulator.requestLog().dropFirst(before)).map { request in
                var fields = request.object ?? [:]
                fields["headers"] = nil
                return .object(fields)
            }
        }
    }

    static let key = try! StoreKey(bytes: [UInt8](repeating: 0x29, count: StoreKey.byteCount))

    @Test(arguments: [false, true])
    func afterTheJournalIsDeletedRecoveryKeepsEveryRecordFlagUploadAndSyncAndSyncsUpTheSame(
        encrypted: Bool
    ) async throws {
        let root = try TemporaryDirectory("journal-recovery-e2e")
        defer { root.remove() }
        let key = encrypted ? Self.key : nil
        let intact = try await Twin.make(in: root, "intact", key: key)
        let damaged = try await Twin.make(in: root, "damaged", key: key)
        try await intact.buildHistory()
        try await damaged.buildHistory()
        let expected = try intact.contents(try intact.open())
        #expect(try damaged.contents(try damaged.open()) == expected)
        #expect(
            try intact.open().pendingUploads(syncId: try #require(try intact.open().syncState(named: "up")).id).count
                == 1)

        try FileManager.default.removeItem(at: damaged.directory.appendingPathComponent("journal/data.mdb"))
        let refusal = try #require(throws: JournalError.self) { try damaged.open() }
        #expect(refusal.code == .journalBehind)
        // Its own clock, reading no later than the twins', so the sync up that follows is stamped alike.
        let recoveryClock = ManualWallClock(WallTime(millisecondsSinceEpoch: 1_800_000_000_000))
        let report = try SyncStore.recoverJournal(
            directory: damaged.directory, clock: recoveryClock, options: damaged.options, logger: .discarding)
        #expect(FileManager.default.fileExists(atPath: report.keptAside.path))
        #expect(try damaged.contents(try damaged.open()) == expected)

        let sentByIntact = try await intact.syncUpAgain()
        let sentByRecovered = try await damaged.syncUpAgain()
        #expect(!sentByIntact.isEmpty)
        #expect(sentByRecovered == sentByIntact)
        let after = try damaged.contents(try damaged.open())
        let expectedAfter = try intact.contents(try intact.open())
        for (got, wanted) in zip(after, expectedAfter) where got != wanted {
            Issue.record("after the sync up: \(got.serializedString) != \(wanted.serializedString)")
        }
        await intact.server.stop()
        await damaged.server.stop()
    }
}
