import Foundation
import LosslessJSON
import SalesforceAPI
import Testing

@Suite struct SharedRefreshAndAnyRequestTests {
    /// Mobile SDK shares one refresh between requests refused at once; refreshing once per
    /// request would race a refresh-token rotation and waste round trips.
    @Test func concurrentRequestsRefusedWithOneTokenShareOneRefresh() async throws {
        try await LoopbackOrg.with { org in
            try await org.control("POST", "tokens/expire")
            let totals = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<6 {
                    group.addTask { try await org.client.query("SELECT Id FROM Account").totalSize }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(totals == Array(repeating: 0, count: 6))
            #expect(org.refreshes.all.count == 1)
            let log = try await org.requestLog()
            #expect(log.filter { $0["path"]?.string == "/services/oauth2/token" }.count == 1)
            #expect(log.filter { $0["status"]?.number?.int64Value == 200 }.count == 7)
        }
    }

    @Test func anyRequestIsSentWithTheClientsAuthenticationAndRefresh() async throws {
        try await LoopbackOrg.with { org in
            try await org.control("POST", "tokens/expire")
            let answer = try await org.client.send(
                "GET", path: org.client.dataPath + "/query", query: [("q", "SELECT Id FROM Account")])
            #expect(answer["totalSize"]?.number?.int64Value == 0)
            #expect(org.refreshes.all.count == 1)
        }
    }

    @Test func anApexRESTRefusalIsTheServersTypedError() async throws {
        try await LoopbackOrg.with { org in
            let error = await #expect(throws: SalesforceError.self) {
                try await org.client.send("POST", path: "/services/apexrest/orders", body: ["region": "EMEA"])
            }
            #expect(error?.httpStatus == 404)
            let log = try await org.requestLog()
            #expect(log.count == 1, "a POST is not idempotent, so it is not retried")
        }
    }

    @Test(arguments: [
        ("TRACE", "/services/apexrest/x"), ("GET", "services/apexrest/x"), ("GET", "https://x.example/y"),
    ])
    func aRequestThatCannotBeSentIsInvalid(method: String, path: String) async throws {
        try await LoopbackOrg.with { org in
            let error = await #expect(throws: SalesforceError.self) { try await org.client.send(method, path: path) }
            #expect(error?.code == .invalidRequest)
            let log = try await org.requestLog()
            #expect(log.isEmpty)
        }
    }
}
