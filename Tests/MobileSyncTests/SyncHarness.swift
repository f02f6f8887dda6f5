import Determinism
import EventJournal
import Foundation
import Logging
import LosslessJSON
import MobileSync
import SalesforceAPI
import SalesforceSimulator
import Soups
import SyncTesting
import Synchronization
import Testing

/// A store, a simulator served on 127.0.0.1 (port 0), a client and a sync manager: what every
/// end-to-end sync-down test starts from. ``with(accounts:indexes:targets:_:)`` always stops the
/// server, checks `journal.verify()` and removes the store.
struct SyncHarness {
    static let soup = "accounts"
    /// Where record modification dates start: 2023-01-01T00:00:00Z, one second apart. The
    /// simulator's logical clock starts at the newest record's second, as if the org had just
    /// been loaded, so its own writes are always later and the first sync reads the org within
    /// the watermark's second (a reSync then asks for that second again, decision 0325).
    static let firstModified: Int64 = 1_672_531_200_000

    let store: SyncStore
    let simulator: SalesforceSimulator
    let client: SalesforceClient
    let manager: SyncManager

    /// Runs `body` against `accounts` simulator Accounts named `Account 000`, `Account 001`, …
    /// whose `LastModifiedDate`s are one second apart, in a store with an `accounts` soup.
    static func with<T>(
        accounts: Int = 5, recentAccounts: [Int] = [], indexes: [IndexSpec] = [IndexSpec(path: "Id", type: .string)],
        targets: SyncDownTargetRegistry = SyncDownTargetRegistry(), retryPolicy: RetryPolicy = .standard,
        simulatorClock: SalesforceSimulator.ClockMode? = nil, apexRoutes: [ApexRoute] = [],
        encryption: StoreKey? = nil, _ body: (SyncHarness) async throws -> T
    ) async throws -> T {
        let directory = try TemporaryDirectory("mobilesync-e2e")
        defer { directory.remove() }
        var data = data(accounts: accounts, recent: recentAccounts)
        data.apexRoutes = apexRoutes
        let simulator = try SalesforceSimulator(
            configuration: SalesforceSimulator.Configuration(
                data: data, seed: 42,
                clock: simulatorClock
                    ?? .logical(start: WallTime(millisecondsSinceEpoch: modified(max(accounts, 1) - 1)))),
            sleepClock: ImmediateClock(), logger: .discarding)
        let server = try await SimulatorServer.start(simulator, logger: .discarding)
        do {
            let clock = ManualWallClock(WallTime(millisecondsSinceEpoch: 1_800_000_000_000), tick: .milliseconds(1))
            var options = JournalOptions()
            options.encryption = encryption
            let store = try SyncStore(
                directory: directory.appending("store"), clock: clock, idGenerator: IncrementingIDGenerator(),
                options: options, logger: .discarding)
            try store.soups.registerSoup(soup, indexSpecs: indexes)
            let client = SalesforceClient(
                credentials: SalesforceCredentials(
                    instanceURL: server.url, accessToken: simulator.accessToken,
                    refreshToken: "simulator-refresh-token", clientID: "test-client"),
                retryPolicy: retryPolicy, clock: ImmediateClock(), randomSeed: 7, logger: .discarding)
            let manager = try SyncManager(
                store: store, client: client, targets: targets, clock: clock, logger: .discarding)
            let harness = SyncHarness(store: store, simulator: simulator, client: client, manager: manager)
            let result = try await body(harness)
            try harness.verifyJournal()
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    static func accountId(_ number: Int) -> String {
        SalesforceID(keyPrefix: "001", counter: UInt64(number + 1)).rawValue
    }

    static func modified(_ number: Int) -> Int64 {
        firstModified + Int64(number) * 1000
    }

    static func data(accounts: Int, recent: [Int]) -> SimulatorData {
        let records = (0..<accounts).map { number -> (type: String, fields: [String: JSONValue]) in
            let name = "Account " + String(String(number + 1000).dropFirst())
            let date = WallTime(millisecondsSinceEpoch: modified(number)).salesforceFormat
            return (
                type: "Account",
                fields: ["Id": .string(accountId(number)), "Name": .string(name), "LastModifiedDate": .string(date)]
            )
        }
        return SimulatorData(records: records, recentItems: ["Account": recent.map(accountId)])
    }

    /// `journal.verify()` finds the projections equal to a rebuild.
    func verifyJournal() throws {
        let report = try store.journal.verify()
        #expect(report.isConsistent, "verify: \(report.divergences)")
    }

    /// Every record of the soup, by `_soupEntryId`.
    func records() throws -> [JSONValue] {
        try store.soups.query(QuerySpec.all(Self.soup, orderPath: "_soupEntryId", pageSize: 100_000))
    }

    /// The soup's records keyed by their `Id`.
    func recordsById() throws -> [String: JSONValue] {
        var byId: [String: JSONValue] = [:]
        for record in try records() { if let id = record["Id"]?.string { byId[id] = record } }
        return byId
    }

    /// The `_soupEntryId` of the local record with `id`.
    func entryId(of id: String) throws -> Int64 {
        let found = try store.soups.lookupSoupEntryId(Self.soup, path: "Id", value: .string(id))
        return try #require(found)
    }

    /// The SOQL texts of the query requests the simulator received, oldest first.
    func soqlSent() -> [String] {
        simulator.requestLog().compactMap { entry -> String? in
            guard let path = entry["path"]?.string, path.hasSuffix("/query"),
                let query = entry["query"]?.string
            else { return nil }
            var components = URLComponents()
            components.percentEncodedQuery = query.replacing("+", with: "%20")
            return components.queryItems?.first { $0.name == "q" }?.value
        }
    }

    /// The `Sforce-Query-Options` header of each query request, `nil` when absent.
    func queryOptionsSent() -> [String?] {
        simulator.requestLog().compactMap { entry -> String?? in
            guard let path = entry["path"]?.string, path.hasSuffix("/query") else { return nil }
            return .some(entry["headers"]?["sforce-query-options"]?.string)
        }
    }
}

/// Collects values from `@Sendable` callbacks.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    func append(_ value: Value) { values.withLock { $0.append(value) } }

    var all: [Value] { values.withLock { $0 } }
}

extension SyncState {
    /// `STATUS(progress,totalSize)`, the shape the progress assertions compare.
    var progressSummary: String {
        "\(status.rawValue)(\(progress),\(totalSize))"
    }
}
