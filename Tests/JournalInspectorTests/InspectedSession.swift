import Determinism
import EventJournal
import Foundation
import JournalInspector
import Logging
import LosslessJSON
import MobileSync
import SyncTesting

/// A recorded session's journal imported into a throw-away store and served by an in-process
/// inspector on 127.0.0.1 port 0, with the built `journal-replay` to ask the same questions.
struct InspectedSession {
    /// The session: a sync down, a local create, a sync up that fails once and is run again,
    /// and a second sync down (Journals/README.md).
    static let sessionPath = "lifecycle/crash-recovered-upload"
    /// A fixed token: the tests check that it is required, not how it is drawn.
    static let token = "0123456789abcdef0123456789abcdef"

    static let journals = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Journals")

    let directory: TemporaryDirectory
    let storeURL: URL
    let replay: BuiltProduct
    let store: SyncStore
    let server: InspectorServer

    var port: Int { server.port }

    /// Imports `session`, runs each of `before` as `journal-replay VERB STORE ARGUMENTS…`, and
    /// serves the store.
    /// `storeName` is what the pages call the store (its path by default, as the tools print it).
    static func start(session: String = sessionPath, before: [[String]] = [], storeName: String? = nil) async throws
        -> InspectedSession
    {
        let directory = try TemporaryDirectory("inspector")
        let storeURL = directory.appending("store")
        let replay = try BuiltProduct("journal-replay")
        let file = journals.appendingPathComponent(session).appendingPathComponent("session.jsonl")
        let imported = try await replay.run(["import", file.path, storeURL.path])
        guard imported.status == 0 else { throw LoopbackHTTP.Failure(description: imported.standardError) }
        for command in before {
            let output = try await replay.run([command[0], storeURL.path] + command.dropFirst())
            guard output.status == 0 else { throw LoopbackHTTP.Failure(description: output.standardError) }
        }
        let store = try SyncStore.openExisting(directory: storeURL, clock: SystemWallClock(), logger: .discarding)
        let server = try await InspectorServer.start(
            store, storeName: storeName ?? storeURL.path, token: token, logger: .discarding)
        return InspectedSession(directory: directory, storeURL: storeURL, replay: replay, store: store, server: server)
    }

    func stop() async {
        await server.stop()
        try? store.journal.close()
        directory.remove()
    }

    /// GETs `path` with the token added.
    func get(_ path: String, _ query: [String: String] = [:]) async throws -> LoopbackHTTP.Answer {
        var components = URLComponents()
        components.path = path
        components.queryItems = (query.merging(["token": Self.token]) { a, _ in a }).sorted { $0.key < $1.key }
            .map { URLQueryItem(name: $0.key, value: $0.value) }
        return try await LoopbackHTTP.get(
            port: port, components.percentEncodedPath + "?" + (components.percentEncodedQuery ?? ""))
    }

    /// GETs a JSON endpoint and parses its answer.
    func json(_ path: String, _ query: [String: String] = [:]) async throws -> JSONValue {
        let answer = try await get(path, query)
        guard answer.status == 200 else {
            throw LoopbackHTTP.Failure(description: "\(path) answered \(answer.status): \(answer.text)")
        }
        return try JSONValue(parsing: answer.body)
    }

    /// What `journal-replay ARGUMENTS STORE …` prints, parsed as JSON.
    func replayJSON(_ verb: String, _ arguments: [String] = []) async throws -> JSONValue {
        let output = try await replay.run([verb, storeURL.path] + arguments + ["--json"])
        guard output.status == 0 else { throw LoopbackHTTP.Failure(description: output.standardError) }
        return try JSONValue(parsing: Array(output.standardOutput.utf8))
    }
}
