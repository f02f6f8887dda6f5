import Determinism
import Foundation
import JournalInspector
import SyncTesting
import Testing

/// Only requests to a loopback name carrying the token are answered.
@Suite(.serialized) struct InspectorAccessTests {
    @Test func withoutTheTokenOrWithAWrongOneEveryPathIs403() async throws {
        let session = try await InspectedSession.start()
        var answers: [LoopbackHTTP.Answer] = []
        for path in ["/", "/timeline", "/api/log", "/api/state", "/assets/inspector.js"] {
            answers.append(try await LoopbackHTTP.get(port: session.port, path))
            answers.append(
                try await LoopbackHTTP.get(port: session.port, path + "?token=0123456789abcdef0123456789abcdee"))
            answers.append(try await LoopbackHTTP.get(port: session.port, path + "?token="))
        }
        await session.stop()
        #expect(answers.allSatisfy { $0.status == 403 })
        #expect(answers.allSatisfy { !$0.text.contains("accounts") })
    }

    @Test(arguments: ["evil.example", "evil.example:80", "192.168.1.2", "127.0.0.1.evil.example", ""])
    func anotherHostIs403EvenWithTheToken(host: String) async throws {
        let session = try await InspectedSession.start()
        let answer = try await LoopbackHTTP.get(
            port: session.port, "/api/info?token=\(InspectedSession.token)", host: host)
        await session.stop()
        #expect(answer.status == 403)
    }

    @Test(arguments: ["127.0.0.1", "localhost", "LOCALHOST"])
    func loopbackNamesWithTheTokenAreAnswered(name: String) async throws {
        let session = try await InspectedSession.start()
        let answer = try await LoopbackHTTP.get(
            port: session.port, "/api/info?token=\(InspectedSession.token)", host: "\(name):\(session.port)")
        await session.stop()
        #expect(answer.status == 200)
        #expect(answer.headers["cache-control"] == "no-store")
    }

    @Test func aShortTokenIsRefusedAtStart() async throws {
        let session = try await InspectedSession.start()
        await #expect(throws: (any Error).self) {
            _ = try await InspectorServer.start(session.store, storeName: "store", token: "short", logger: .discarding)
        }
        await session.stop()
    }
}
