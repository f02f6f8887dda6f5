import Determinism
import Foundation
import LosslessJSON
import SalesforceAPI
import SalesforceSimulator
import Testing

@Suite struct SalesforceClientResilienceTests {
    @Test func expiredTokenIsRefreshedOnceAndTheRequestReplayed() async throws {
        try await LoopbackOrg.with { org in
            let before = org.client.credentials.accessToken
            try await org.control("POST", "tokens/expire")
            let page = try await org.client.query("SELECT Id FROM Account")
            #expect(page.totalSize == 0)
            let refreshed = org.refreshes.all
            #expect(refreshed.count == 1)
            #expect(refreshed.first?.accessToken != before)
            #expect(org.client.credentials.accessToken == refreshed.first?.accessToken)
            let log = try await org.requestLog()
            #expect(log.map { $0["status"]?.number?.int64Value } == [401, 200, 200])
            #expect(
                log.map { $0["path"]?.string } == [
                    "/services/data/v66.0/query", "/services/oauth2/token", "/services/data/v66.0/query",
                ])
            #expect(log[1]["body"]?.string?.contains("grant_type=refresh_token") == true)
        }
    }

    @Test func revokedRefreshTokenIsATypedSessionRevokedError() async throws {
        try await LoopbackOrg.with { org in
            try await org.control("POST", "tokens/revoke")
            let error = await #expect(throws: SalesforceError.self) {
                try await org.client.query("SELECT Id FROM Account")
            }
            #expect(error?.code == .sessionRevoked)
            #expect(error?.errorCode == "invalid_grant")
            #expect(org.refreshes.all.isEmpty)
        }
    }

    @Test func unauthorizedWithoutRefreshTokenIsAnAuthenticationFailureWithTheServersDetails() async throws {
        try await LoopbackOrg.with { org in
            let client = SalesforceClient(
                credentials: SalesforceCredentials(instanceURL: org.server.url, accessToken: "wrong"),
                logger: LoopbackOrg.logger)
            let error = await #expect(throws: SalesforceError.self) { try await client.query("SELECT Id FROM Account") }
            #expect(error?.code == .authenticationFailed)
            #expect(error?.httpStatus == 401)
            #expect(error?.errorCode == "INVALID_SESSION_ID")
        }
    }

    @Test func injected503IsRetriedWithBackoffForAQuery() async throws {
        try await LoopbackOrg.with { org in
            try await org.faults(
                FaultPlan(rules: [FaultRule(method: "GET", path: "/services/data/v66.0/query", status: 503, count: 2)]))
            let page = try await org.client.query("SELECT Id FROM Account")
            #expect(page.done)
            #expect(org.clock.sleeps.count == 2)
            let sleeps = org.clock.sleeps
            #expect(sleeps[0] >= .milliseconds(100) && sleeps[0] <= .milliseconds(200))
            #expect(sleeps[1] >= .milliseconds(200) && sleeps[1] <= .milliseconds(400))
            let log = try await org.requestLog()
            #expect(log.map { $0["status"]?.number?.int64Value } == [503, 503, 200])
        }
    }

    @Test func retriesStopAtTheAttemptLimit() async throws {
        try await LoopbackOrg.with(retryPolicy: RetryPolicy(attemptCountMax: 3)) { org in
            try await org.faults(FaultPlan(rules: [FaultRule(path: "/services/data/v66.0/query", status: 500)]))
            let error = await #expect(throws: SalesforceError.self) {
                try await org.client.query("SELECT Id FROM Account")
            }
            #expect(error?.httpStatus == 500)
            #expect(error?.isRetryable == true)
            #expect(try await org.requestLog().count == 3)
        }
    }

    @Test func postCreateIsNeverRetried() async throws {
        try await LoopbackOrg.with { org in
            try await org.faults(
                FaultPlan(rules: [
                    FaultRule(method: "POST", path: "/services/data/v66.0/sobjects/Account", status: 503, count: 1)
                ]))
            let error = await #expect(throws: SalesforceError.self) {
                try await org.client.create(type: "Account", fields: ["Name": "Once"])
            }
            #expect(error?.httpStatus == 503)
            #expect(error?.errorCode == "SERVER_UNAVAILABLE")
            #expect(org.clock.sleeps.isEmpty)
            let log = try await org.requestLog()
            #expect(log.count == 1)
        }
    }

    @Test func droppedConnectionIsANetworkErrorNotAServerAnswer() async throws {
        try await LoopbackOrg.with(retryPolicy: .none) { org in
            try await org.faults(
                FaultPlan(rules: [
                    FaultRule(
                        method: "POST", path: "/services/data/v66.0/sobjects/Account", drop: .afterCommit, count: 1)
                ]))
            let error = await #expect(throws: SalesforceError.self) {
                try await org.client.create(type: "Account", fields: ["Name": "Committed"])
            }
            #expect(error?.code == .network)
            #expect(error?.httpStatus == nil)
            // The write committed before the drop: the client must reconcile, not blindly re-create.
            #expect(try await org.client.query("SELECT Name FROM Account").totalSize == 1)
        }
    }

    @Test func droppedConnectionBeforeCommitWritesNothingAndIdempotentReadsRetry() async throws {
        try await LoopbackOrg.with { org in
            try await org.faults(
                FaultPlan(rules: [FaultRule(path: "/services/data/v66.0/query", drop: .beforeCommit, count: 1)]))
            let page = try await org.client.query("SELECT Id FROM Account")
            #expect(page.totalSize == 0)
            #expect(org.clock.sleeps.count == 1)
        }
    }

    @Test func serverErrorsCarryStatusAndTheErrorArray() async throws {
        try await LoopbackOrg.with { org in
            let malformed = await #expect(throws: SalesforceError.self) {
                try await org.client.query("SELEKT Id FROM Account")
            }
            #expect(malformed?.httpStatus == 400)
            #expect(malformed?.code == .server)
            #expect(malformed?.errors.first?.errorCode == "MALFORMED_QUERY")
            #expect(malformed?.errors.first?.message == "unexpected token: SELEKT")
            let tooLong = await #expect(throws: SalesforceError.self) {
                try await org.client.create(
                    type: "Account", fields: ["Name": .string(String(repeating: "x", count: 256))])
            }
            #expect(tooLong?.errors.first?.errorCode == "STRING_TOO_LONG")
            #expect(tooLong?.errors.first?.fields == ["Name"])
            #expect(tooLong?.message.hasPrefix("Account Name: data value too large: ") == true)
            let missing = await #expect(throws: SalesforceError.self) {
                try await org.client.create(type: "Account", fields: ["Name": ""])
            }
            #expect(missing?.errors.first?.message == "Required fields are missing: [Name]")
            let badID = await #expect(throws: SalesforceError.self) {
                try await org.client.update(type: "Account", id: "a00B000000FSjVUIB1", fields: [:])
            }
            #expect(badID?.errors.first?.errorCode == "MALFORMED_ID")
            #expect(badID?.errors.first?.fields == ["Id"])
            let unknownField = await #expect(throws: SalesforceError.self) {
                try await org.client.query("SELECT Bacon__c FROM Account")
            }
            #expect(unknownField?.errors.first?.errorCode == "INVALID_FIELD")
        }
    }

    @Test func unknownAPIVersionAnswersNotFound() async throws {
        try await LoopbackOrg.with(apiVersion: "viAmABadVersion") { org in
            let error = await #expect(throws: SalesforceError.self) {
                try await org.client.query("SELECT Id FROM Account")
            }
            #expect(error?.httpStatus == 404)
            #expect(error?.errorCode == "NOT_FOUND")
        }
    }

    @Test func unreachableServerIsANetworkError() async throws {
        // The server is stopped when `with` returns, so nothing listens on its port any more.
        let url = try await LoopbackOrg.with { org in org.server.url }
        let client = SalesforceClient(
            credentials: SalesforceCredentials(instanceURL: url, accessToken: "t"), retryPolicy: .none,
            logger: LoopbackOrg.logger)
        let error = await #expect(throws: SalesforceError.self) { try await client.query("SELECT Id FROM Account") }
        #expect(error?.code == .network)
    }

    @Test func backoffDelaysGrowAndStayBounded() {
        let policy = RetryPolicy(attemptCountMax: 10, delayInitial: .milliseconds(100), delayMax: .seconds(1))
        #expect(policy.delay(beforeRetry: 1, fraction: 0) == .milliseconds(50))
        #expect(policy.delay(beforeRetry: 1, fraction: 1) == .milliseconds(100))
        #expect(policy.delay(beforeRetry: 3, fraction: 1) == .milliseconds(400))
        #expect(policy.delay(beforeRetry: 9, fraction: 1) == .seconds(1))
    }
}
