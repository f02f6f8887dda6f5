import Determinism
import LosslessJSON
import MobileSync
import SalesforceAPI
import SalesforceSimulator
import Soups
import Testing

/// A custom target that reads an org's own Apex REST endpoint through
/// `SalesforceClient.send`, with the client's authentication and token refresh.
@Suite struct ApexRESTTargetTests {
    static let routes = [
        ApexRoute(
            path: "accounts/changed",
            soql: "SELECT Id, Name, LastModifiedDate FROM Account WHERE LastModifiedDate > :since "
                + "ORDER BY LastModifiedDate"),
        ApexRoute(path: "accounts/ids", soql: "SELECT Id FROM Account"),
    ]

    /// The accounts changed since the watermark, from `GET /services/apexrest/accounts/changed`.
    struct ChangedAccountsTarget: SyncDownTarget {
        var idFieldName: String { "Id" }
        var modificationDateFieldName: String { "LastModifiedDate" }
        var isSortedByModificationDate: Bool { true }
        private(set) var totalSize: Int64 = -1

        static func client(_ context: SyncDownContext) throws -> SalesforceClient {
            guard let client = context.client else { throw SyncError(.notConnected, "no connection") }
            return client
        }

        mutating func startFetch(_ context: SyncDownContext, maxTimeStamp: Int64) async throws -> [JSONValue] {
            let since = WallTime(millisecondsSinceEpoch: max(maxTimeStamp, 0)).salesforceFormat
            let answer = try await Self.client(context).send(
                "GET", path: "/services/apexrest/accounts/changed", query: [("since", since)])
            let records = answer["records"]?.array ?? []
            totalSize = Int64(records.count)
            return records
        }

        mutating func continueFetch(_ context: SyncDownContext) async throws -> [JSONValue]? { nil }

        func remoteIds(_ context: SyncDownContext, localIds: [String]) async throws -> Set<String> {
            let answer = try await Self.client(context).send("GET", path: "/services/apexrest/accounts/ids")
            return Set((answer["records"]?.array ?? []).compactMap { $0["Id"]?.string })
        }
    }

    @Test func aCustomTargetSyncsFromApexRESTWithTheClientsRefresh() async throws {
        var registry = SyncDownTargetRegistry()
        registry.register("ApexAccounts") { _ in ChangedAccountsTarget() }
        try await SyncHarness.with(accounts: 4, targets: registry, apexRoutes: Self.routes) { harness in
            harness.simulator.expireAccessTokens()
            let target = try SyncDownTargetDescriptor(.custom(registryKey: "ApexAccounts"))
            let first = try await harness.manager.syncDown(target: target, soupName: SyncHarness.soup, name: "apex")
            #expect(first.progressSummary == "DONE(100,4)")
            #expect(try harness.records().count == 4)
            let again = try await harness.manager.reSync(name: "apex")
            #expect(again.status == .done)
            #expect(again.totalSize == 0, "the reSync asked only after the watermark")
            let log = harness.simulator.requestLog().compactMap { entry -> String? in
                guard let path = entry["path"]?.string, path.hasPrefix("/services/") else { return nil }
                return "\(entry["status"]?.number?.int64Value ?? 0) \(path)"
            }
            #expect(
                log == [
                    "401 /services/apexrest/accounts/changed", "200 /services/oauth2/token",
                    "200 /services/apexrest/accounts/changed", "200 /services/apexrest/accounts/changed",
                ])
            #expect(try await harness.manager.cleanResyncGhosts(name: "apex") == 0)
        }
    }

    @Test func aRouteParameterThatIsNotADateTimeIsRefused() async throws {
        try await SyncHarness.with(accounts: 1, apexRoutes: Self.routes) { harness in
            let error = await #expect(throws: SalesforceError.self) {
                try await harness.client.send(
                    "GET", path: "/services/apexrest/accounts/changed", query: [("since", "1 OR Name != null")])
            }
            #expect(error?.httpStatus == 400)
            let missing = await #expect(throws: SalesforceError.self) {
                try await harness.client.send("GET", path: "/services/apexrest/accounts/changed")
            }
            #expect(missing?.errorCode == "MISSING_ARGUMENT")
        }
    }
}
