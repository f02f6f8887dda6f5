import Determinism
import Foundation
import LosslessJSON
import SalesforceAPI
import Synchronization
import Testing

@Suite struct SharedRefreshAndAnyRequestTests {
    /// Answers in memory: 401 to the old token, a query page to the new one, and the new token
    /// to a refresh, counting the refreshes. In memory, not over loopback: six requests held
    /// open at once would take every connection URLSession allows one host, which the other
    /// suites' servers on 127.0.0.1 share.
    ///
    /// The refresh is answered only once every request has been refused with the old token, so
    /// all of them are waiting on the one refresh when it ends, however the tasks are scheduled.
    final class TokenCheckingTransport: HTTPTransport {
        let refreshes = Mutex(0)
        private let refusalsBeforeRefresh: Int
        /// The refusals so far, and the refresh waiting for the last of them.
        private let refusals = Mutex<(count: Int, waitingRefresh: CheckedContinuation<Void, Never>?)>((0, nil))

        init(refusalsBeforeRefresh: Int) {
            self.refusalsBeforeRefresh = refusalsBeforeRefresh
        }

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            if request.url.path.hasSuffix("/oauth2/token") {
                refreshes.withLock { $0 += 1 }
                await withCheckedContinuation { continuation in
                    let resumeNow = refusals.withLock { refusals in
                        guard refusals.count < refusalsBeforeRefresh else { return true }
                        refusals.waitingRefresh = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
                return TransportResponse(status: 200, body: Data(#"{"access_token":"NEW"}"#.utf8))
            }
            guard request.headers["Authorization"] == "Bearer NEW" else {
                let refresh = refusals.withLock { refusals in
                    refusals.count += 1
                    guard refusals.count >= refusalsBeforeRefresh else { return CheckedContinuation<Void, Never>?.none }
                    defer { refusals.waitingRefresh = nil }
                    return refusals.waitingRefresh
                }
                refresh?.resume()
                return TransportResponse(
                    status: 401, body: Data(#"[{"errorCode":"INVALID_SESSION_ID","message":"expired"}]"#.utf8))
            }
            return TransportResponse(status: 200, body: Data(#"{"totalSize":0,"done":true,"records":[]}"#.utf8))
        }
    }

    /// Mobile SDK shares one refresh between requests refused at once; refreshing once per
    /// request would race a refresh-token rotation and waste round trips.
    @Test func concurrentRequestsRefusedWithOneTokenShareOneRefresh() async throws {
        let transport = TokenCheckingTransport(refusalsBeforeRefresh: 6)
        let client = SalesforceClient(
            credentials: SalesforceCredentials(
                instanceURL: try #require(URL(string: "https://org.example.com")), accessToken: "OLD",
                refreshToken: "R1"),
            transport: transport, clock: ImmediateClock(), logger: LoopbackOrg.logger)
        let totals = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<6 {
                group.addTask { try await client.query("SELECT Id FROM Account").totalSize }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(totals == Array(repeating: 0, count: 6))
        #expect(transport.refreshes.withLock { $0 } == 1)
        #expect(client.credentials.accessToken == "NEW")
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
