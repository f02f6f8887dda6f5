import Foundation
import LosslessJSON
import SyncTesting
import Testing

/// The inspector on stores whose history says more: a compacted journal (the horizon) and a
/// sync up whose records failed (failures and `__last_error__`).
@Suite(.serialized) struct InspectorHistoryTests {
    @Test func aCompactedStoreShowsItsHorizonAndAnswersFromItAsTheToolsDo() async throws {
        let session = try await InspectedSession.start(before: [["compact", "--retain-entries", "5"]])
        let timeline = try await session.json("/api/timeline")
        let log = try await session.get("/api/log")
        let printed = try await session.replay.run(["log", session.storeURL.path, "--json"])
        let belowHorizon = try await session.get("/api/log", ["from": "1"])
        let state = try await session.json("/api/state", ["asOf": "15"])
        let printedState = try await session.replayJSON("state", ["--as-of", "15"])
        await session.stop()
        let horizon = timeline["horizon"]?.number?.int64Value ?? 0
        #expect(timeline["compacted"] == .bool(true))
        #expect(horizon == 14)
        let sequences = (timeline["groups"]?.array ?? []).flatMap { $0["entries"]?.array ?? [] }
            .compactMap { $0["sequence"]?.number?.int64Value }
        #expect(sequences == Array(14...18))
        #expect(log.text == printed.standardOutput)
        #expect(belowHorizon.status == 400 && belowHorizon.text.contains("horizon"))
        #expect(state == printedState)
    }

    @Test func aSyncUpWithRecordErrorsShowsItsFailuresAndLastErrors() async throws {
        let session = try await InspectedSession.start(session: "sync-up/record-errors")
        let syncs = try await session.json("/api/syncs")
        let timeline = try await session.json("/api/timeline", ["sync": "up"])
        await session.stop()
        let up = syncs["syncs"]?.array?.first
        #expect(up?["recordsWithLastError"]?.array?.map { $0["Id"] } == ["local_2"])
        let run = up?["runs"]?.array?.first
        #expect(run?["status"] == "DONE")
        #expect(run?["failures"]?["count"] == 1)
        let runs = (timeline["groups"]?.array ?? []).filter { $0["type"] == "sync-run" }
        #expect(runs.first?["failures"] == run?["failures"])
    }
}
