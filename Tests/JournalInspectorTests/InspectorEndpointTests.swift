import Foundation
import LosslessJSON
import SyncTesting
import Testing

/// Every `/api/` endpoint against a recorded session's store, compared with what
/// `journal-replay log/state/blame/info` print for the same question.
@Suite(.serialized) struct InspectorEndpointTests {
    @Test(arguments: [
        [String: String](), ["kind": "sync.state.changed"], ["soup": "accounts"], ["sync": "up"], ["sync": "1"],
        ["from": "5", "to": "12"], ["kind": "sync.down.page", "sync": "accounts"],
    ])
    func logAnswersExactlyWhatLogJSONPrints(filters: [String: String]) async throws {
        let session = try await InspectedSession.start()
        let answer = try await session.get("/api/log", filters)
        let arguments = filters.sorted { $0.key < $1.key }.flatMap { ["--\($0.key)", $0.value] }
        let printed = try await session.replay.run(["log", session.storeURL.path] + arguments + ["--json"])
        await session.stop()
        #expect(answer.status == 200)
        #expect(printed.status == 0)
        #expect(answer.text == printed.standardOutput)
    }

    @Test(arguments: [nil, "1", "9", "18"])
    func stateAnswersWhatStateAsOfPrints(asOf: String?) async throws {
        let session = try await InspectedSession.start()
        let served = try await session.json("/api/state", asOf.map { ["asOf": $0] } ?? [:])
        let printed = try await session.replayJSON("state", asOf.map { ["--as-of", $0] } ?? [])
        let soupOnly = try await session.json("/api/state", ["soup": "accounts"])
        let printedSoupOnly = try await session.replayJSON("state", ["--soup", "accounts"])
        await session.stop()
        #expect(served == printed)
        #expect(soupOnly == printedSoupOnly)
    }

    @Test(arguments: ["local_1", "001000000000002AAA", "001000000000001AAA"])
    func blameAnswersWhatBlamePrints(id: String) async throws {
        let session = try await InspectedSession.start()
        let served = try await session.json("/api/blame", ["soup": "accounts", "id": id])
        let printed = try await session.replay.run(["blame", session.storeURL.path, "accounts", id, "--json"])
        let record = try await session.json("/api/record", ["soup": "accounts", "id": id])
        await session.stop()
        #expect(served == (try JSONValue(parsing: Array(printed.standardOutput.utf8))))
        // The record page lists the same entries, each with what it changed.
        #expect(record["events"]?.array?.map { $0["sequence"] } == served.array?.map { $0["sequence"] })
        #expect(record["events"]?.array?.allSatisfy { $0["changes"]?.array != nil } == true)
    }

    @Test func infoAndStoreAnswerWhatInfoPrints() async throws {
        let session = try await InspectedSession.start()
        let served = try await session.json("/api/info")
        let store = try await session.json("/api/store")
        let printed = try await session.replayJSON("info")
        await session.stop()
        // How the projections were found on open differs between two openings of one store.
        let opening: Set<String> = ["projectionsOnOpen", "foldedOnOpen", "projectionsUnsynced"]
        let strip = { (value: JSONValue?) in value?.object?.filter { !opening.contains($0.key) } }
        #expect(strip(served) == strip(printed))
        #expect(strip(store["summary"]) == strip(printed))
        #expect(store["growth"]?.array?.last?["sequence"] == JSONValue(integerLiteral: 18))
    }

    @Test func timelineListsTheEntriesLogListsGroupedIntoRuns() async throws {
        let session = try await InspectedSession.start()
        let all = try await session.json("/api/timeline")
        let upOnly = try await session.json("/api/timeline", ["sync": "up"])
        let logged = try await session.replayJSON("log", ["--sync", "up"])
        let asOf = try await session.json("/api/timeline", ["asOf": "10"])
        let record = try await session.json("/api/timeline", ["soup": "accounts", "record": "local_1"])
        await session.stop()
        let sequences = { (timeline: JSONValue) in
            (timeline["groups"]?.array ?? []).flatMap { $0["entries"]?.array ?? [] }.compactMap { $0["sequence"] }
        }
        #expect(sequences(all).count == 18)
        #expect(sequences(upOnly) == logged.array?.compactMap { $0["sequence"] })
        let runs = (all["groups"]?.array ?? []).filter { $0["type"] == "sync-run" }
        // Sync 1 runs twice, sync 2 fails once and then succeeds.
        #expect(runs.map { $0["status"]?.string ?? "" } == ["DONE", "FAILED", "DONE", "DONE"])
        #expect((all["groups"]?.array ?? []).contains { $0["type"] == "local-edits" })
        #expect(sequences(asOf).last == JSONValue(integerLiteral: 10))
        #expect(sequences(record) == [6, 14, 17].map { .number(JSONNumber(Int64($0))) })
    }

    @Test func syncsShowRunsWatermarksPendingUploadsAsOfAnEntry() async throws {
        let session = try await InspectedSession.start()
        let now = try await session.json("/api/syncs")
        let then = try await session.json("/api/syncs", ["asOf": "10"])
        await session.stop()
        let byName = { (page: JSONValue, name: String) in
            page["syncs"]?.array?.first { $0["state"]?["name"]?.string == name }
        }
        let down = byName(now, "accounts")
        #expect(down?["runs"]?.array?.count == 2)
        #expect(down?["runs"]?.array?.last?["watermarkBefore"] == JSONValue(integerLiteral: 1_672_531_200_000))
        #expect(down?["runs"]?.array?.last?["watermarkAfter"] == JSONValue(integerLiteral: 1_672_531_205_000))
        #expect(byName(now, "up")?["pendingUploads"]?.array?.isEmpty == true)
        // As of entry 10 the upload failed and its intent, entry 9, is still pending.
        let upThen = byName(then, "up")
        #expect(upThen?["state"]?["status"] == "FAILED")
        #expect(upThen?["pendingUploads"]?.array?.first?["intentSequence"] == JSONValue(integerLiteral: 9))
    }

    @Test func soupsAndQueriesAnswerWhatTheStoreHolds() async throws {
        let session = try await InspectedSession.start()
        let soups = try await session.json("/api/soups")
        let printed = try await session.replayJSON("state")
        let exact = try await session.json("/api/query", ["soup": "accounts", "exact": "Name=Created offline"])
        let like = try await session.json("/api/query", ["soup": "accounts", "like": "Name=Acc%"])
        let range = try await session.json("/api/query", ["soup": "accounts", "range": "Id=001000000000002AAA.."])
        let smart = try await session.json("/api/query", ["smart": "select count(*) from {accounts}"])
        let past = try await session.json("/api/soups", ["asOf": "5"])
        let records = try await session.json("/api/soups/accounts/records")
        let pastRecords = try await session.json("/api/soups/accounts/records", ["asOf": "5"])
        let firstId = records["rows"]?.array?.first?.array?.first?.string ?? "0"
        let secondPage = try await session.json("/api/soups/accounts/records", ["after": firstId, "limit": "1"])
        // A form sends a space as `+`.
        let plus = try await LoopbackHTTP.get(
            port: session.port, "/api/query?token=\(InspectedSession.token)&soup=accounts&exact=Name%3DCreated+offline")
        await session.stop()
        // The summaries count what `state` prints whole; the records page lists the same records.
        let printedSoups = printed["projections"]?["soups"]?.object ?? [:]
        #expect(Set((soups["soups"]?.object ?? [:]).keys) == Set(printedSoups.keys))
        for (name, printedSoup) in printedSoups {
            let summary = soups["soups"]?[name]
            #expect(summary?["indexes"] == printedSoup["indexes"])
            #expect(summary?["dirty"] == printedSoup["dirty"])
            #expect(summary?["recordCount"]?.number?.int64Value == Int64(printedSoup["records"]?.array?.count ?? -1))
            #expect(summary?["dirtyCount"]?.number?.int64Value == Int64(printedSoup["dirty"]?.array?.count ?? -1))
        }
        let printedIds = (printedSoups["accounts"]?["records"]?.array ?? []).map { $0["_soupEntryId"] ?? .null }
        #expect(
            records["rows"]?.array?.map { $0.array?.first?.string ?? "" } == printedIds.map(\.serializedString))
        #expect(records["columns"]?.array?.prefix(2) == ["_soupEntryId", "Id"])
        #expect(records["next"] == .null)
        #expect(pastRecords["rows"]?.array?.count == 1)
        // One record after the first: the second, and a cursor when a third follows.
        #expect(printedIds.count >= 2)
        if printedIds.count >= 2 {
            #expect(secondPage["rows"]?.array?.first?.array?.first?.string == printedIds[1].serializedString)
            #expect(secondPage["next"] == (printedIds.count > 2 ? printedIds[1] : .null))
        }
        #expect(exact["records"]?.array?.map { $0["Id"] } == ["001000000000002AAA"])
        #expect(try JSONValue(parsing: plus.body)["records"] == exact["records"])
        #expect(like["records"]?.array?.map { $0["Name"] } == ["Account 000"])
        #expect(range["count"] == JSONValue(integerLiteral: 1))
        #expect(smart["records"]?.array?.first == [JSONValue(integerLiteral: 2)])
        #expect(past["soups"]?["accounts"]?["recordCount"] == 1)
    }

    @Test func everyPageIsServedAndBadQuestionsAreClearErrors() async throws {
        let session = try await InspectedSession.start()
        var pages: [LoopbackHTTP.Answer] = []
        for path in ["/", "/timeline", "/syncs", "/soups", "/record", "/conflicts", "/state", "/store"] {
            pages.append(try await session.get(path))
        }
        let script = try await session.get("/assets/inspector.js")
        let unknown = try await session.get("/api/nothing")
        let pastTheEnd = try await session.get("/api/state", ["asOf": "99"])
        let noRecord = try await session.get("/api/blame", ["soup": "accounts", "id": "nobody"])
        let noSoup = try await session.get("/api/soups", ["soup": "contacts"])
        await session.stop()
        for page in pages {
            #expect(page.status == 200)
            #expect(page.text.contains("/assets/inspector.js?token=\(InspectedSession.token)"))
        }
        #expect(script.status == 200 && script.headers["content-type"]?.hasPrefix("text/javascript") == true)
        #expect(unknown.status == 404)
        #expect(pastTheEnd.status == 400 && pastTheEnd.text.contains("past the journal's last entry, 18"))
        #expect(noRecord.status == 404)
        #expect(noSoup.status == 404)
    }
}
