import Determinism
import Foundation
import LosslessJSON
import SyncReplay
import SyncTesting
import Testing

/// Replays every recorded session under `Journals/` in both modes, and records them when asked.
///
/// `JOURNALS_RECORD=missing` records the catalogue's cases that have no directory yet;
/// `JOURNALS_RECORD=all` records every case again. Without it nothing is written, so a case
/// without files fails.
@Suite struct RecordedSessionTests {
    /// `Journals/`, found from this file so that recording writes into the repository.
    static let journals = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Journals")

    enum RecordMode: String {
        case never, missing, all
    }

    static var recordMode: RecordMode? {
        RecordMode(rawValue: ProcessInfo.processInfo.environment["JOURNALS_RECORD"] ?? "never")
    }

    /// The catalogue's cases and every directory found, so a case added only as files is replayed too.
    static let casePaths = Set(SessionCatalog.all.map(\.path) + RecordedSession.casePaths(in: journals)).sorted()

    @Test(arguments: casePaths)
    func recordedSessionReplaysIdenticallyInBothModes(path: String) async throws {
        let mode = try #require(Self.recordMode, "JOURNALS_RECORD must be never, missing or all")
        let directory = Self.journals.appendingPathComponent(path)
        if let scenario = SessionCatalog.named(path), mode == .all || (mode == .missing && Self.lacksAFile(directory)) {
            try await RecordedSession.record(scenario, into: directory)
        }
        let report = try await RecordedSession(directory: directory).replay()
        #expect(report.entryCount > 0)
    }

    static func lacksAFile(_ directory: URL) -> Bool {
        SessionFiles.all.contains { !FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path) }
    }

    @Test func theCorpusHasEveryCatalogueCaseAndAtLeastTwelve() throws {
        let readme = try String(contentsOf: Self.journals.appendingPathComponent("README.md"), encoding: .utf8)
        let found = Set(RecordedSession.casePaths(in: Self.journals))
        #expect(SessionCatalog.all.count >= 12)
        for scenario in SessionCatalog.all {
            #expect(found.contains(scenario.path), "\(scenario.path) is not recorded: run JOURNALS_RECORD=missing")
            #expect(readme.contains("`\(scenario.path)`"), "Journals/README.md does not list \(scenario.path)")
        }
    }

    /// A temporary directory holding a copy of the recorded case `path` under `case`, to change.
    private static func copyOfCase(_ path: String) throws -> TemporaryDirectory {
        let copy = try TemporaryDirectory("session-copy")
        try FileManager.default.copyItem(
            at: journals.appendingPathComponent(path), to: copy.appending("case"))
        return copy
    }

    /// Flips one bit of one byte at a time — the first, the last before the final line break, and
    /// six seeded offsets — in each of the case's files, and expects every replay to fail.
    @Test(arguments: ["sync-up/collection", "faults/token-refresh"])
    func changingOneByteOfAnyRecordedFileFailsTheReplay(path: String) async throws {
        let copy = try Self.copyOfCase(path)
        defer { copy.remove() }
        let directory = copy.appending("case")
        try await RecordedSession(directory: directory).replay()
        var random = SplitMix64(seed: 8)
        for name in SessionFiles.all {
            let url = directory.appendingPathComponent(name)
            let original = try Data(contentsOf: url)
            let offsets =
                [0, original.count - 2] + (0..<6).map { _ in Int.random(in: 0..<original.count, using: &random) }
            for offset in offsets {
                var changed = original
                changed[offset] ^= 0x01
                try changed.write(to: url)
                await #expect(throws: SessionReplayError.self, "\(name) byte \(offset)") {
                    try await RecordedSession(directory: directory).replay()
                }
            }
            try original.write(to: url)
        }
        try await RecordedSession(directory: directory).replay()
    }

    @Test func aChangedOperationIsReportedAtTheFirstRequestThatDiffers() async throws {
        let copy = try Self.copyOfCase("sync-up/collection")
        defer { copy.remove() }
        let directory = copy.appending("case")
        let url = directory.appendingPathComponent(SessionFiles.operations)
        var script = try SessionScript.decode(try Data(contentsOf: url))
        let index = try #require(script.operations.firstIndex { if case .createLocally = $0 { true } else { false } })
        script.operations[index] = .createLocally(soup: "accounts", type: "Account", fields: ["Name": "Someone else"])
        try script.encoded().write(to: url)
        do {
            try await RecordedSession(directory: directory).replayEngine()
            Issue.record("the replay passed")
        } catch let error as SessionReplayError {
            #expect(error.code == .requestDiverged)
            #expect(error.message.contains("body differs"), "\(error.message)")
            #expect(error.message.contains("Someone else"), "\(error.message)")
        }
    }

    @Test func aRemovedProjectionKeyIsNamedInTheDivergence() async throws {
        let copy = try Self.copyOfCase("sync-down/initial")
        defer { copy.remove() }
        let directory = copy.appending("case")
        let url = directory.appendingPathComponent(SessionFiles.expectedProjections)
        var snapshot = try JSONDecoder().decode(ProjectionSnapshot.self, from: Data(contentsOf: url))
        let database = try #require(snapshot.databases.firstIndex { !$0.entries.isEmpty })
        let removed = snapshot.databases[database].entries.removeFirst()
        try snapshot.encoded().write(to: url)
        do {
            try RecordedSession(directory: directory).replayProjections()
            Issue.record("the replay passed")
        } catch let error as SessionReplayError {
            #expect(error.code == .projectionDiverged)
            #expect(error.message.contains(snapshot.databases[database].name), "\(error.message)")
            #expect(error.message.contains(removed.key ?? removed.keyHex ?? "?"), "\(error.message)")
        }
    }

    @Test func recordingsHoldNoTokens() throws {
        let exchanges = try String(
            contentsOf: Self.journals.appendingPathComponent("faults/token-refresh/exchanges.jsonl"), encoding: .utf8)
        #expect(exchanges.contains("/services/oauth2/token"))
        #expect(!exchanges.contains("session-access-token"))
        #expect(!exchanges.contains("session-refresh-token"))
        let parsed = try RecordedExchange.parseLines(Data(exchanges.utf8))
        let refresh = try #require(parsed.first { $0.request.path == "/services/oauth2/token" })
        #expect(refresh.request.body?.contains("refresh_token=REDACTED") == true)
        let answer = try JSONValue(parsing: Array((refresh.response?.body ?? "").utf8))
        #expect(answer["access_token"] == "REDACTED")
        #expect(parsed.allSatisfy { ($0.request.headers["authorization"] ?? "REDACTED") == "REDACTED" })
    }

    @Test func aMissingCaseDirectoryIsAMissingFileError() async throws {
        let copy = try TemporaryDirectory("session-missing")
        defer { copy.remove() }
        await #expect(throws: SessionReplayError.self) {
            try await RecordedSession(directory: copy.appending("absent")).replay()
        }
    }
}
