import Determinism
import EventJournal
import Foundation
import LMDBStore
import LosslessJSON
import SyncReplay
import SyncTesting
import Testing

/// Runs the built `journal-replay` binary end to end: arguments, exit codes and output.
@Suite struct JournalReplayToolTests {
    let tool: BuiltProduct
    let directory: TemporaryDirectory

    init() throws {
        tool = try BuiltProduct("journal-replay")
        directory = try TemporaryDirectory("tool")
    }

    /// A store with 30 entries of three kinds.
    private func makeStore(_ name: String = "store") throws -> URL {
        let url = directory.appending(name)
        let journal = try Journal(directory: url, clock: ManualWallClock(tick: .milliseconds(1)), logger: .discarding)
        try journal.append((1...30).map { CrashWriterPayload.draft(for: UInt64($0)) })
        return url
    }

    @Test func verifyAcceptsAHealthyStore() async throws {
        defer { directory.remove() }
        let store = try makeStore()
        let output = try await tool.run(["verify", store.path])
        #expect(output.status == 0)
        #expect(output.standardOutput.contains("ok: 30 entries verified"))
    }

    @Test func verifyExitsOneOnACorruptEntry() async throws {
        defer { directory.remove() }
        let store = try makeStore()
        do {
            let environment = try Environment(directory: store.appendingPathComponent("journal"))
            let entries = try environment.database(named: "journal.entries")
            let key = withUnsafeBytes(of: UInt64(17).bigEndian) { Array($0) }
            try environment.write { transaction in
                var value = try #require(try transaction.get(entries, key: key))
                value[30] ^= 0xFF
                try transaction.put(entries, key: key, value: value)
            }
        }
        let output = try await tool.run(["verify", store.path])
        #expect(output.status == 1)
        #expect(output.standardOutput.contains("entry 17 is corrupt"))
        #expect(!output.wasKilled)
    }

    @Test func aMissingStoreExitsThreeWithOneLine() async throws {
        defer { directory.remove() }
        for command in ["verify", "info", "log", "export"] {
            let output = try await tool.run([command, directory.appending("absent").path])
            #expect(output.status == 3, "\(command)")
            #expect(output.standardError.split(separator: "\n").count == 1, "\(command): \(output.standardError)")
            #expect(output.standardError.contains("store at"))
        }
    }

    @Test func exportImportExportIsByteIdenticalAndDiffFindsNothing() async throws {
        defer { directory.remove() }
        let store = try makeStore()
        let first = try await tool.run(["export", store.path])
        #expect(first.status == 0)
        let file = directory.appending("export.jsonl")
        try Data(first.standardOutput.utf8).write(to: file)
        let copy = directory.appending("copy")
        let imported = try await tool.run(["import", file.path, copy.path])
        #expect(imported.status == 0)
        #expect(imported.standardOutput.contains("imported 30 entries"))
        // Standard error is not a terminal here, so progress comes as plain lines.
        #expect(imported.standardError.contains("importing: 100% (30/30)"))
        let second = try await tool.run(["export", copy.path])
        #expect(second.standardOutput == first.standardOutput)
        let diff = try await tool.run(["diff", store.path, copy.path])
        #expect(diff.status == 0)
        #expect(diff.standardOutput.contains("no differences"))
    }

    @Test func rebuildRefoldsTheProjectionsAndShowsProgress() async throws {
        defer { directory.remove() }
        let store = try makeStore()
        let rebuilt = try await tool.run(["rebuild", store.path])
        #expect(rebuilt.status == 0)
        #expect(rebuilt.standardOutput == "rebuilt the projections from 30 entries\n")
        #expect(rebuilt.standardError.contains("rebuilding: 100% (30/30)"))
        #expect(try await tool.run(["verify", store.path]).status == 0)
    }

    @Test func diffNamesTheFirstDifferingEntry() async throws {
        defer { directory.remove() }
        let store = try makeStore("a")
        let other = directory.appending("b")
        let journal = try Journal(directory: other, clock: ManualWallClock(tick: .milliseconds(1)), logger: .discarding)
        try journal.append((1...12).map { CrashWriterPayload.draft(for: UInt64($0)) })
        try journal.append(JournalEntry.Draft(kind: "different"))
        let diff = try await tool.run(["diff", store.path, other.path])
        #expect(diff.status == 1)
        #expect(diff.standardOutput.contains("first differing entry: 13"))
    }

    @Test func importRejectsMalformedJSONWithExitTwo() async throws {
        defer { directory.remove() }
        let file = directory.appending("bad.jsonl")
        try Data("{\"not\": \"an entry\"}\n".utf8).write(to: file)
        let output = try await tool.run(["import", file.path, directory.appending("new").path])
        #expect(output.status == 2)
        #expect(output.standardError.contains("line 1"))
    }

    @Test func logPrintsAJSONArrayFilteredByKind() async throws {
        defer { directory.remove() }
        let store = try makeStore()
        let output = try await tool.run([
            "log", store.path, "--kind", "crash.beta", "--from", "5", "--to", "20", "--json",
        ])
        #expect(output.status == 0)
        let entries = try JSONValue(parsing: output.standardOutput).array ?? []
        #expect(entries.compactMap { $0["sequence"]?.number?.int64Value } == [7, 10, 13, 16, 19])
    }

    @Test func infoSummarizesTheStore() async throws {
        defer { directory.remove() }
        let store = try makeStore()
        let output = try await tool.run(["info", store.path, "--json"])
        #expect(output.status == 0)
        let summary = try JSONValue(parsing: output.standardOutput)
        #expect(summary["lastSequence"]?.number?.int64Value == 30)
        #expect(summary["kinds"]?["crash.alpha"]?.number?.int64Value == 10)
    }

    @Test func badArgumentsExitTwo() async throws {
        defer { directory.remove() }
        for arguments in [["log", directory.url.path, "--from", "9", "--to", "3"], ["frobnicate"], ["verify"]] {
            let output = try await tool.run(arguments)
            #expect(output.status == 2, "\(arguments)")
            #expect(!output.standardError.isEmpty)
        }
    }
}

@Suite struct JournalReplayStateToolTests {
    @Test func stateAsOfShowsTheProjectionsAtThatEntry() async throws {
        let directory = try TemporaryDirectory("tool")
        defer { directory.remove() }
        let store = directory.appending("store")
        let journal = try Journal(directory: store, clock: ManualWallClock(tick: .milliseconds(1)), logger: .discarding)
        try journal.append((1...30).map { CrashWriterPayload.draft(for: UInt64($0)) })
        let output = try await BuiltProduct("journal-replay").run(["state", store.path, "--as-of", "12", "--json"])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(try JSONValue(parsing: output.standardOutput)["asOf"]?.number?.int64Value == 12)
    }
}

/// `journal-replay replay-session` over the recorded sessions in `Journals/`.
@Suite struct JournalReplaySessionToolTests {
    static let journals = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Journals")

    @Test func aRecordedSessionReplaysInBothModes() async throws {
        let path = Self.journals.appendingPathComponent("sync-down/resync").path
        let output = try await BuiltProduct("journal-replay").run(["replay-session", path])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(output.standardOutput.contains("ok: \(path): 4 requests and 8 journal entries replayed"))
        #expect(output.standardError.isEmpty)
    }

    /// The overlap of a reSync shows in each fetched page's line and in the saved target.
    @Test func logShowsWhereEachReSyncPageAskedFrom() async throws {
        let directory = try TemporaryDirectory("tool-log")
        defer { directory.remove() }
        let session = Self.journals.appendingPathComponent("sync-down/resync-same-second/session.jsonl")
        let store = directory.appending("store")
        let tool = try BuiltProduct("journal-replay")
        #expect(try await tool.run(["import", session.path, store.path]).status == 0)
        let log = try await tool.run(["log", store.path, "--kind", "sync.down.page", "--sync", "1"])
        #expect(log.status == 0, "\(log.standardError)")
        let lines = log.standardOutput.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.contains("modifiedSince=-1 ") == true, "the first run asks for everything")
        #expect(lines.last?.contains("modifiedSince=1672531200000 ") == true)
        #expect(lines.allSatisfy { $0.contains("reSyncOverlapSeconds=3 ") })
        #expect(lines.allSatisfy { $0.contains("modificationDateFieldName=LastModifiedDate ") })
        // By name, the pages (which name only the id) come too.
        let byName = try await tool.run(["log", store.path, "--kind", "sync.down.page", "--sync", "accounts"])
        #expect(byName.status == 0, "\(byName.standardError)")
        #expect(byName.standardOutput == log.standardOutput)
        let state = try await tool.run(["state", store.path, "--json"])
        #expect(state.standardOutput.contains(#""reSyncOverlapSeconds":3"#), "\(state.standardOutput.prefix(400))")
    }

    /// `compact --copy` writes a store that verifies and answers like the source; a taken
    /// destination is a store error (exit 3) that leaves it alone.
    @Test func compactWritesACopyThatVerifiesAndRefusesATakenDestination() async throws {
        let directory = try TemporaryDirectory("tool-compact")
        defer { directory.remove() }
        let session = Self.journals.appendingPathComponent("sync-down/resync-same-second/session.jsonl")
        let store = directory.appending("store")
        let copy = directory.appending("copy")
        let tool = try BuiltProduct("journal-replay")
        #expect(try await tool.run(["import", session.path, store.path]).status == 0)
        let compact = try await tool.run(["compact", store.path, "--copy", copy.path])
        #expect(compact.status == 0, "\(compact.standardError)")
        #expect(compact.standardOutput.hasPrefix("ok: "))
        let verify = try await tool.run(["verify", copy.path])
        #expect(verify.status == 0, "\(verify.standardOutput)")
        let logs = [
            try await tool.run(["log", store.path]).standardOutput,
            try await tool.run(["log", copy.path]).standardOutput,
        ]
        #expect(logs[0] == logs[1])
        let again = try await tool.run(["compact", store.path, "--copy", copy.path])
        #expect(again.status == 3)
        #expect(again.standardError.contains("exists"))
    }

    /// `compact` in place moves the horizon; `info` shows it with the file and live bytes;
    /// `state --as-of` and `log --from` below it exit 3 naming it; `verify` checks from it.
    @Test func compactInPlaceMovesTheHorizonThatTheOtherCommandsName() async throws {
        let directory = try TemporaryDirectory("tool-compact-in-place")
        defer { directory.remove() }
        let session = Self.journals.appendingPathComponent("sync-down/resync-same-second/session.jsonl")
        let store = directory.appending("store")
        let archive = directory.appending("archive.jsonl")
        let tool = try BuiltProduct("journal-replay")
        #expect(try await tool.run(["import", session.path, store.path]).status == 0)
        let fullLog = try await tool.run(["log", store.path]).standardOutput.split(separator: "\n")
        let compact = try await tool.run(["compact", store.path, "--retain-entries", "3", "--archive", archive.path])
        #expect(compact.status == 0, "\(compact.standardError)")
        #expect(compact.standardOutput.contains("horizon moved from entry 1 to"), "\(compact.standardOutput)")

        let info = try await JSONValue(parsing: try tool.run(["info", store.path, "--json"]).standardOutput)
        let horizon = info["horizon"]?.number?.int64Value ?? 0
        let last = info["lastSequence"]?.number?.int64Value ?? 0
        #expect(horizon == last - 2)
        #expect((info["liveBytes"]?.number?.int64Value ?? 0) > 0)
        #expect((info["liveBytes"]?.number?.int64Value ?? 0) <= (info["fileBytes"]?.number?.int64Value ?? 0))
        let text = try await tool.run(["info", store.path]).standardOutput
        #expect(text.contains("horizon:        entry \(horizon) (older entries compacted away)"), "\(text)")

        for arguments in [["state", store.path, "--as-of", "1"], ["log", store.path, "--from", "1"]] {
            let output = try await tool.run(arguments)
            #expect(output.status == 3, "\(arguments)")
            #expect(output.standardError.contains("horizon, entry \(horizon)"), "\(arguments): \(output.standardError)")
        }
        let log = try await tool.run(["log", store.path]).standardOutput.split(separator: "\n")
        #expect(log == Array(fullLog.suffix(3)))
        let verify = try await tool.run(["verify", store.path])
        #expect(verify.status == 0, "\(verify.standardOutput) \(verify.standardError)")
        let archived = try String(contentsOf: archive, encoding: .utf8).split(separator: "\n")
        #expect(archived.count == Int(horizon) - 1)
    }

    @Test func aChangedExpectedProjectionExitsOneNamingTheKey() async throws {
        let directory = try TemporaryDirectory("tool-session")
        defer { directory.remove() }
        let copy = directory.appending("case")
        try FileManager.default.copyItem(at: Self.journals.appendingPathComponent("sync-down/initial"), to: copy)
        let file = copy.appendingPathComponent("expected-projections.json")
        let text = try String(contentsOf: file, encoding: .utf8)
        try text.replacingOccurrences(of: "Account 002", with: "Account 00X").write(
            to: file, atomically: true, encoding: .utf8)
        let output = try await BuiltProduct("journal-replay").run(["replay-session", copy.path])
        #expect(output.status == 1)
        #expect(output.standardError.split(separator: "\n").count == 1, "\(output.standardError)")
        #expect(output.standardError.contains("replay differs: projection replay: projection soups."))
        #expect(!output.wasKilled)
    }

    @Test func aMissingDirectoryOrAMalformedFileExitsTwoWithOneLine() async throws {
        let directory = try TemporaryDirectory("tool-session")
        defer { directory.remove() }
        let missing = try await BuiltProduct("journal-replay").run([
            "replay-session", directory.appending("absent").path,
        ])
        #expect(missing.status == 2)
        #expect(missing.standardError.split(separator: "\n").count == 1, "\(missing.standardError)")
        #expect(missing.standardError.contains("no session directory"))
        let copy = directory.appending("case")
        try FileManager.default.copyItem(at: Self.journals.appendingPathComponent("sync-down/initial"), to: copy)
        try Data("{not json\n".utf8).write(to: copy.appendingPathComponent("exchanges.jsonl"))
        let malformed = try await BuiltProduct("journal-replay").run(["replay-session", copy.path])
        #expect(malformed.status == 2)
        #expect(malformed.standardError.split(separator: "\n").count == 1, "\(malformed.standardError)")
        #expect(malformed.standardError.contains("exchanges.jsonl line 1"))
    }
}

@Suite struct JournalReplaySimulateToolTests {
    @Test func simulateRunsASeededCampaignAndReportsEachSeed() async throws {
        let output = try await BuiltProduct("journal-replay").run([
            "simulate", "--seed", "7", "--steps", "40", "--seeds", "2",
        ])
        #expect(output.status == 0, "\(output.standardError)")
        let lines = output.standardOutput.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("seed 7: 40 steps") == true)
        #expect(lines.allSatisfy { $0.hasSuffix("every invariant held") })
    }

    @Test func aShrinkAttemptCountOutOfRangeIsBadInput() async throws {
        let output = try await BuiltProduct("journal-replay").run([
            "simulate", "--seed", "7", "--steps", "5", "--shrink-attempts", "100001",
        ])
        #expect(output.status == 2)
        #expect(output.standardError.contains("--shrink-attempts must be 0 to 100000"), "\(output.standardError)")
    }
}
