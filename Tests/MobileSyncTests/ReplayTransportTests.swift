import Foundation
import SalesforceAPI
import SyncReplay
import SyncTesting
import Testing

/// The two transports of recorded sessions, without a sync engine in between.
@Suite struct ReplayTransportTests {
    /// Answers `GET /a` with 200 and drops every other request.
    struct FixedTransport: HTTPTransport {
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            guard request.url.path == "/a" else { throw TransportFailure(isTimeout: false, message: "dropped") }
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data("{}".utf8))
        }
    }

    static func request(_ path: String, body: String? = nil, token: String = "secret") -> TransportRequest {
        TransportRequest(
            method: body == nil ? "GET" : "POST",
            url: URL(string: "http://host.invalid\(path)?x=1") ?? URL(fileURLWithPath: "/"),
            headers: ["Authorization": "Bearer \(token)"], body: body.map { Data($0.utf8) })
    }

    /// Two exchanges: `GET /a` answered, `POST /b` dropped.
    static func recording() async throws -> [RecordedExchange] {
        let recorder = RecordingTransport(FixedTransport())
        _ = try await recorder.send(request("/a"))
        await #expect(throws: TransportFailure.self) { try await recorder.send(request("/b", body: "{\"n\":1}")) }
        return recorder.exchanges
    }

    @Test func theRecorderKeepsAnswersAndFailuresAndRedactsTheAuthorizationHeader() async throws {
        let exchanges = try await Self.recording()
        #expect(exchanges.map(\.number) == [1, 2])
        #expect(exchanges[0].request.query == "x=1")
        #expect(exchanges[0].request.headers["authorization"] == RecordedExchange.redacted)
        #expect(exchanges[0].response?.status == 200)
        #expect(exchanges[1].failure?.message == "dropped")
        let lines = Data(try exchanges.flatMap { try $0.line() })
        #expect(try RecordedExchange.parseLines(lines) == exchanges)
    }

    @Test func aReplayServesTheRecordingWhateverTheToken() async throws {
        let replay = ReplayTransport(try await Self.recording())
        let answer = try await replay.send(Self.request("/a", token: "another"))
        #expect(answer.status == 200)
        #expect(String(decoding: answer.body, as: UTF8.self) == "{}")
        await #expect(throws: TransportFailure.self) { try await replay.send(Self.request("/b", body: "{\"n\":1}")) }
        try replay.checkFinished()
    }

    @Test func theFirstDifferentRequestIsKeptAndNamed() async throws {
        let replay = ReplayTransport(try await Self.recording())
        _ = try await replay.send(Self.request("/a"))
        await #expect(throws: SessionReplayError.self) { try await replay.send(Self.request("/b", body: "{\"n\":2}")) }
        let divergence = try #require(replay.divergence)
        #expect(divergence.code == .requestDiverged)
        #expect(divergence.message.contains("request 2"))
        #expect(divergence.message.contains("body differs at byte 5"))
        // Later requests fail with the same, first, divergence.
        await #expect(throws: SessionReplayError.self) { try await replay.send(Self.request("/a")) }
        #expect(replay.divergence?.message == divergence.message)
    }

    @Test func requestsBeyondTheRecordingAndRequestsNeverSentAreDivergences() async throws {
        let short = ReplayTransport(Array(try await Self.recording().prefix(1)))
        _ = try await short.send(Self.request("/a"))
        await #expect(throws: SessionReplayError.self) { try await short.send(Self.request("/a")) }
        #expect(short.divergence?.message.contains("the recording ends after 1 requests") == true)
        let unfinished = ReplayTransport(try await Self.recording())
        _ = try await unfinished.send(Self.request("/a"))
        #expect(throws: SessionReplayError.self) { try unfinished.checkFinished() }
    }

    @Test func oauthBodiesLoseTheirTokens() {
        let form = RecordedExchange.redactedBody(
            Array("grant_type=refresh_token&refresh_token=abc&client_id=c".utf8), path: "/services/oauth2/token")
        #expect(String(decoding: form, as: UTF8.self) == "grant_type=refresh_token&refresh_token=REDACTED&client_id=c")
        let answer = RecordedExchange.redactedBody(
            Array(#"{"access_token":"t","instance_url":"http://x","refresh_token":"r"}"#.utf8),
            path: "/services/oauth2/token")
        #expect(
            String(decoding: answer, as: UTF8.self)
                == #"{"access_token":"REDACTED","instance_url":"http://x","refresh_token":"REDACTED"}"#)
        let other = Array(#"{"access_token":"kept"}"#.utf8)
        #expect(RecordedExchange.redactedBody(other, path: "/services/data/v66.0/query") == other)
    }
}
