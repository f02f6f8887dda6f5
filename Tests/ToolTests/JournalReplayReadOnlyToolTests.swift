import Foundation
import LMDBStore
import LosslessJSON
import SyncTesting
import Testing

/// `journal-replay`'s read verbs leave every byte of a store as it was, `lock.mdb` aside
/// (decision 0024): on a healthy store, and on one whose writer was killed between the
/// journal's commit and the projections'.
@Suite(.serialized) struct JournalReplayReadOnlyToolTests {
    let msync: BuiltProduct
    let replay: BuiltProduct
    let directory: TemporaryDirectory

    init() throws {
        (msync, replay, directory) = try ToolWorkspace.make("read-only")
    }

    @Test func readVerbsLeaveAHealthyStoreAsItWas() async throws {
        defer { directory.remove() }
        let store = try await makeStore("healthy")
        let other = directory.appending("healthy-copy")
        try FileManager.default.copyItem(at: store, to: other)
        let before = try StoreFiles(of: store)
        let id = try #require(try await recordId(in: store, named: "Acme"))
        try await runEveryReadVerb(on: store, recordId: id, diffingWith: other)
        #expect(try StoreFiles(of: store).changedPaths(since: before) == [])
    }

    @Test func readVerbsLeaveAStoreWhoseWriterWasKilledAsItWasAndShowItsLastEntry() async throws {
        defer { directory.remove() }
        let base = try await makeStore("base")
        let baseLast = try await lastSequence(of: base)
        let store = try await killedWriterCopy(of: base, lastSequence: baseLast)
        let before = try StoreFiles(of: store)

        // The entry the killed writer appended but never folded is in every answer.
        #expect(try await lastSequence(of: store) == baseLast + 1)
        let state = try await run(["state", store.path, "--soup", "accounts", "--json"])
        #expect(state.contains("Killed"), "\(state)")
        #expect(try await run(["log", store.path]).contains("Killed"))
        let id = try #require(try await recordId(in: store, named: "Acme"))
        try await runEveryReadVerb(on: store, recordId: id, diffingWith: base)
        #expect(try StoreFiles(of: store).changedPaths(since: before) == [])
    }

    // MARK: - Stores

    /// A store made by `msync`: a soup, two records, an update, then closed.
    private func makeStore(_ name: String) async throws -> URL {
        let store = directory.appending(name)
        _ = try await msyncRun(["register-soup", "accounts", "--index", "Id:string"], store: store)
        let createdText = try await msyncRun(["create", "accounts", #"{"Name":"Acme"}"#], store: store)
        let created = try JSONValue(parsing: createdText)
        _ = try await msyncRun(["create", "accounts", #"{"Name":"Other"}"#], store: store)
        let id = try #require(created["Id"]?.string)
        _ = try await msyncRun(["update", "accounts", id, #"{"Name":"Acme Corp"}"#], store: store)
        return store
    }

    /// A copy of `base` in which one `msync create` was killed right after its entry's journal
    /// commit, before the projections folded it: the shape a killed writer leaves.
    ///
    /// The create's journal commit is not the process's first (opening commits too), so the
    /// kill moves one commit later on a fresh copy each time until the journal holds the entry.
    private func killedWriterCopy(of base: URL, lastSequence baseLast: UInt64) async throws -> URL {
        for commit in 1...Self.commitSearchMax {
            let copy = directory.appending("killed-\(commit)")
            try FileManager.default.copyItem(at: base, to: copy)
            var environment = ProcessInfo.processInfo.environment
            environment[CrashPoint.environmentVariable] =
                CrashPoint(folderName: "journal", commit: commit, moment: .afterCommit).description
            let output = try await msync.run(
                ["create", "accounts", #"{"Name":"Killed"}"#, "--store", copy.path], environment: environment)
            #expect(output.wasKilled, "commit \(commit): \(output.standardError)")
            if try await lastSequence(of: copy) > baseLast { return copy }
            try FileManager.default.removeItem(at: copy)
        }
        throw NoCommitLeftTheEntryUnfolded()
    }

    private struct NoCommitLeftTheEntryUnfolded: Error {}

    /// How many commits the search tries before giving up: opening and one create stay well
    /// below it.
    private static let commitSearchMax = 20

    // MARK: - Verbs

    /// Runs `info`, `log`, `state` (now and as of an earlier entry), `blame`, `diff`, `export`,
    /// `verify` and `serve`, and expects each to answer. `diff` compares with `other`, since
    /// one process opening one store twice is not what LMDB supports.
    private func runEveryReadVerb(on store: URL, recordId: String, diffingWith other: URL) async throws {
        let path = store.path
        for arguments in [
            ["info", path], ["info", path, "--json"], ["log", path], ["state", path], ["state", path, "--as-of", "2"],
            ["blame", path, "accounts", recordId], ["export", path], ["verify", path],
        ] {
            _ = try await run(arguments)
        }
        // diff exits 1 when the stores differ, as the killed writer's copy and its base do.
        let diff = try await replay.run(["diff", path, other.path])
        #expect([0, 1].contains(diff.status), "diff: \(diff.standardError)")
        try await serveOnce(store)
    }

    /// Starts `serve`, waits for the URL it prints, and stops it.
    private func serveOnce(_ store: URL) async throws {
        let output = directory.appending("serve-\(store.lastPathComponent).out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = replay.url
        process.arguments = ["serve", store.path]
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        let served = try await process.waitWhileRunning(until: {
            (try? String(contentsOf: output, encoding: .utf8))?.contains("inspector: http") ?? false
        })
        #expect(served, "serve printed no URL")
        process.terminate()
        await process.exited()
    }

    private func run(_ arguments: [String]) async throws -> String {
        let output = try await replay.run(arguments)
        #expect(output.status == 0, "\(arguments): \(output.standardError)")
        return output.standardOutput
    }

    private func msyncRun(_ arguments: [String], store: URL) async throws -> String {
        let output = try await msync.run(arguments + ["--store", store.path])
        #expect(output.status == 0, "\(arguments): \(output.standardError)")
        return output.standardOutput
    }

    private func lastSequence(of store: URL) async throws -> UInt64 {
        let text = try await run(["info", store.path, "--json"])
        let info = try JSONValue(parsing: text)
        return try #require(info["lastSequence"]?.number.flatMap { UInt64($0.text) })
    }

    private func recordId(in store: URL, named name: String) async throws -> String? {
        let text = try await run(["state", store.path, "--soup", "accounts", "--json"])
        let state = try JSONValue(parsing: text)
        return Self.records(in: state).first { $0["Name"]?.string?.hasPrefix(name) == true }?["Id"]?.string
    }

    /// Every JSON object holding an `Id` field, wherever it sits in `value`.
    private static func records(in value: JSONValue) -> [JSONValue] {
        if let object = value.object {
            return (object["Id"] != nil ? [value] : []) + object.values.flatMap(records(in:))
        }
        return (value.array ?? []).flatMap(records(in:))
    }
}
