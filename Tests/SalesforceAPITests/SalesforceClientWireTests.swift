import Determinism
import Foundation
import InMemoryLogging
import Logging
import LosslessJSON
import SalesforceAPI
import Testing

/// Checks exactly what the client sends and how it reads answers, against a scripted transport.
@Suite struct SalesforceClientWireTests {
    static let instance = URL(string: "https://example.my.salesforce.com")!
    static let emptyPage = #"{"totalSize":0,"done":true,"records":[]}"#
    static let token = #"{"access_token":"NEW","instance_url":"https://moved.example.com","refresh_token":"R2"}"#

    static func client(
        _ transport: ScriptedTransport, clock: ImmediateClock = ImmediateClock(), logger: Logger? = nil,
        refreshes: Recorder<SalesforceCredentials> = Recorder()
    ) -> SalesforceClient {
        SalesforceClient(
            credentials: SalesforceCredentials(
                instanceURL: instance, accessToken: "OLD", refreshToken: "R1", clientID: "C"),
            transport: transport, clock: clock, randomSeed: 1,
            logger: logger ?? Logger.discarding,
            onCredentialsRefresh: { refreshes.append($0) })
    }

    @Test func queryTextIsPercentEncodedAndAuthorized() async throws {
        let transport = ScriptedTransport([.answer(200, Self.emptyPage)])
        _ = try await Self.client(transport).query(
            "select Id from Account where Name IN ('a b', 'c+d')", batchSize: 199)
        let request = try #require(transport.sent.first)
        #expect(
            request.url.absoluteString
                == "https://example.my.salesforce.com/services/data/v66.0/query?q=select%20Id%20from%20Account%20where%20Name%20IN%20%28%27a%20b%27%2C%20%27c%2Bd%27%29"
        )
        #expect(request.headers["Authorization"] == "Bearer OLD")
        #expect(request.headers["Sforce-Query-Options"] == "batchSize=200")
    }

    @Test func collectionDeleteSendsAllOrNoneThenEncodedIDs() async throws {
        let transport = ScriptedTransport([.answer(200, "[]")])
        _ = try await Self.client(transport).collectionDelete(ids: ["001A", "001B"])
        #expect(transport.sent.first?.url.query == "allOrNone=false&ids=001A%2C001B")
        #expect(transport.sent.first?.method == "DELETE")
    }

    @Test func forbiddenBadOAuthTokenRefreshesAndAdoptsRotatedCredentials() async throws {
        let transport = ScriptedTransport([
            .answer(403, "Bad_OAuth_Token"), .answer(200, Self.token), .answer(200, Self.emptyPage),
        ])
        let refreshes = Recorder<SalesforceCredentials>()
        let client = Self.client(transport, refreshes: refreshes)
        _ = try await client.query("SELECT Id FROM Account")
        let sent = transport.sent
        #expect(sent[1].url.absoluteString == "https://example.my.salesforce.com/services/oauth2/token")
        let form = String(decoding: sent[1].body ?? Data(), as: UTF8.self)
        #expect(form == "grant_type=refresh_token&refresh_token=R1&format=json&client_id=C")
        #expect(sent[1].headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(sent[2].headers["Authorization"] == "Bearer NEW")
        #expect(sent[2].url.host == "moved.example.com")
        #expect(refreshes.all.map(\.refreshToken) == ["R2"])
    }

    @Test func secondUnauthorizedAfterARefreshIsReturnedNotRetried() async throws {
        let unauthorized = #"[{"message":"Session expired or invalid","errorCode":"INVALID_SESSION_ID"}]"#
        let transport = ScriptedTransport([
            .answer(401, unauthorized), .answer(200, Self.token), .answer(401, unauthorized),
        ])
        let error = await #expect(throws: SalesforceError.self) {
            try await Self.client(transport).query("SELECT Id FROM Account")
        }
        #expect(error?.errorCode == "INVALID_SESSION_ID")
        #expect(transport.sent.count == 3)
    }

    @Test func timeoutsAreRetriedForReadsAndReportedAsTimeouts() async throws {
        let timeout = TransportFailure(isTimeout: true, message: "timed out")
        let recovered = ScriptedTransport([.fail(timeout), .answer(200, Self.emptyPage)])
        let clock = ImmediateClock()
        _ = try await Self.client(recovered, clock: clock).query("SELECT Id FROM Account")
        #expect(clock.sleeps.count == 1)
        let exhausted = ScriptedTransport(Array(repeating: .fail(timeout), count: 4))
        let error = await #expect(throws: SalesforceError.self) {
            try await Self.client(exhausted).query("SELECT Id FROM Account")
        }
        #expect(error?.code == .timeout)
        #expect(exhausted.sent.count == 4)
    }

    @Test func sameSeedGivesTheSameBackoff() async throws {
        var runs: [[Duration]] = []
        for _ in 0..<2 {
            let clock = ImmediateClock()
            let transport = ScriptedTransport([.answer(503, "[]"), .answer(502, "[]"), .answer(200, Self.emptyPage)])
            _ = try await Self.client(transport, clock: clock).query("SELECT Id FROM Account")
            runs.append(clock.sleeps)
        }
        #expect(runs[0] == runs[1])
        #expect(runs[0].count == 2)
    }

    @Test func unreadableSuccessBodyIsAnInvalidResponse() async throws {
        let transport = ScriptedTransport([.answer(200, "<html>maintenance</html>")])
        let error = await #expect(throws: SalesforceError.self) {
            try await Self.client(transport).query("SELECT Id FROM Account")
        }
        #expect(error?.code == .invalidResponse)
        #expect(error?.body == Array("<html>maintenance</html>".utf8))
    }

    @Test func recordsPassThroughWithoutReformatting() async throws {
        let body = #"{"totalSize":1,"done":true,"records":[{"Amount":1.50,"Big":12345678901234567890,"Id":"x"}]}"#
        let transport = ScriptedTransport([.answer(200, body)])
        let page = try await Self.client(transport).query("SELECT Amount FROM Opportunity")
        #expect(page.records.first?["Amount"]?.number?.text == "1.50")
        #expect(page.records.first?["Big"]?.number?.text == "12345678901234567890")
    }

    @Test func retriesAndRefreshesAreLogged() async throws {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "test", factory: { _ in handler })
        logger.logLevel = .info
        let transport = ScriptedTransport([
            .answer(503, "[]"), .answer(401, "[]"), .answer(200, Self.token), .answer(200, Self.emptyPage),
        ])
        _ = try await Self.client(transport, logger: logger).query("SELECT Id FROM Account")
        let messages = handler.entries.map(\.message.description)
        #expect(messages == ["Retrying Salesforce request", "Refreshing the Salesforce access token"])
        #expect(handler.entries.first?.metadata["salesforce.retry"] == "1")
    }
}
