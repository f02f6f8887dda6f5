import Foundation
import LosslessJSON
import SyncTesting
import Testing

/// `journal-replay serve` and `msync inspect` as binaries: the printed URL, a store another
/// process writes while it is served, and an encrypted store.
@Suite(.serialized) struct InspectorToolTests {
    let msync: BuiltProduct
    let replay: BuiltProduct
    let directory: TemporaryDirectory

    init() throws {
        msync = try BuiltProduct("msync")
        replay = try BuiltProduct("journal-replay")
        directory = try TemporaryDirectory("inspector-tool")
    }

    private func msync(_ arguments: [String], environment: [String: String]? = nil) async throws {
        let output = try await msync.run(arguments, environment: environment)
        try #require(output.status == 0, "msync \(arguments): \(output.standardError)")
    }

    @Test func serveFollowsEntriesAnotherProcessAppendsWhileServed() async throws {
        defer { directory.remove() }
        let store = directory.appending("store").path
        try await msync(["--store", store, "register-soup", "accounts", "--index", "Name:string"])
        let served = try ServedProcess.start(replay, ["serve", store])
        defer { served.stop() }
        let before = try JSONValue(parsing: try await served.get("/api/info").body)
        try await msync(["--store", store, "create", "accounts", #"{"Name":"Written while served"}"#])
        try await msync(["--store", store, "create", "accounts", #"{"Name":"And another"}"#])
        let after = try JSONValue(parsing: try await served.get("/api/info").body)
        let log = try await served.get("/api/log", "kind=soup.saved")
        let soups = try JSONValue(parsing: try await served.get("/api/soups").body)
        #expect(before["lastSequence"] == JSONValue(integerLiteral: 1))
        #expect(after["lastSequence"] == JSONValue(integerLiteral: 3))
        #expect(log.text.contains("Written while served") && log.text.contains("And another"))
        #expect(soups["soups"]?["accounts"]?["recordCount"] == 2)
    }

    @Test func msyncInspectServesAnEncryptedStoreWithTheKeyTheOtherCommandsTake() async throws {
        defer { directory.remove() }
        let store = directory.appending("secret").path
        var environment = ProcessInfo.processInfo.environment
        environment["SYNCJOURNAL_KEY"] = String(repeating: "5a", count: 32)
        try await msync(
            ["--store", store, "register-soup", "accounts", "--index", "Name:string"], environment: environment)
        try await msync(
            ["--store", store, "create", "accounts", #"{"Name":"Acme Secret Works"}"#], environment: environment)
        let inspected = try ServedProcess.start(msync, ["--store", store, "inspect"], environment: environment)
        let info = try JSONValue(parsing: try await inspected.get("/api/info").body)
        let query = try await inspected.get("/api/query", "soup=accounts&like=Name%3DAcme%25")
        inspected.stop()
        let served = try ServedProcess.start(replay, ["serve", store], environment: environment)
        let timeline = try await served.get("/api/timeline")
        served.stop()
        var withoutKey = ProcessInfo.processInfo.environment
        withoutKey["SYNCJOURNAL_KEY"] = nil
        withoutKey["SYNCJOURNAL_KEY_FILE"] = nil
        let refused = try await replay.run(["serve", store], environment: withoutKey, timeLimit: .seconds(60))
        #expect(info["encrypted"] == .bool(true))
        #expect(query.text.contains("Acme Secret Works"))
        #expect(timeline.status == 200 && timeline.text.contains("local-edits"))
        #expect(refused.status == 2 || refused.status == 3)
        #expect(refused.standardError.contains("encrypted"))
    }
}
