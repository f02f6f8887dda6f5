import Foundation
import LosslessJSON
import MobileSync
import SyncTesting
import Testing

/// The Conflicts page and the timeline's conflict marks, on a store where msync found a field
/// conflict and both record-level ones against the simulator (``ConflictedStore``).
@Suite(.serialized) struct InspectorConflictsTests {
    /// The provenance members the endpoint adds to what `msync conflicts --json` prints.
    private static let provenance: Set<String> = ["baseEntry", "localEntry", "serverEntry"]

    private static func number(_ value: UInt64) -> JSONValue { .number(JSONNumber(Int64(value))) }

    /// `conflict` without the provenance the endpoint adds: what `RecordConflict.json` holds.
    private static func withoutProvenance(_ conflict: JSONValue) -> JSONValue {
        var object = conflict.object ?? [:]
        object["deletedBy"] = nil
        object["fields"] = .array(
            (object["fields"]?.array ?? []).map { field in
                .object((field.object ?? [:]).filter { !provenance.contains($0.key) })
            })
        return .object(object)
    }

    /// An entry the timeline marks as having found open conflicts.
    private struct Mark: Equatable {
        var sequence: JSONValue
        var conflicts: JSONValue
    }

    private static func entries(_ timeline: JSONValue) -> [JSONValue] {
        (timeline["groups"]?.array ?? []).flatMap { $0["entries"]?.array ?? [] }
    }

    private static func marked(_ timeline: JSONValue) -> [Mark] {
        entries(timeline).compactMap { entry in
            guard let conflicts = entry["conflicts"] else { return nil }
            return Mark(sequence: entry["sequence"] ?? .null, conflicts: conflicts)
        }
    }

    @Test func conflictsListEachFieldsBaseLocalAndServerWithTheEntriesThatProducedThem() async throws {
        let conflicted = try await ConflictedStore.start()
        let all = try await conflicted.get("/api/conflicts")
        let oneSoup = try await conflicted.get("/api/conflicts", "soup=accounts")
        let unknownSoup = try await conflicted.get("/api/conflicts", "soup=contacts")
        let past = try await conflicted.get("/api/conflicts", "asOf=1")
        let listed = try conflicted.store.conflicts()
        await conflicted.stop()

        #expect(all.status == 200)
        #expect(all.json["openCount"] == 3)
        let conflicts = all.json["conflicts"]?.array ?? []
        // Each conflict is what `msync conflicts --json` prints, with the entries behind it.
        #expect(conflicts.map(Self.withoutProvenance) == listed.map(\.json))

        let field = try #require(conflicts.first { $0["kind"] == "fields" })
        #expect(field["id"] == .string(conflicted.editedId))
        #expect(field["entry"] == Self.number(conflicted.refetched))
        let name = try #require(field["fields"]?.array?.first)
        #expect(name["path"] == "Name")
        #expect(name["local"] == "Mine")
        #expect(name["server"] == "Theirs")
        #expect(name["base"]?.string?.isEmpty == false)
        // The base came with the first sync down, the local value with the app's edit, the
        // server's with the page that found the conflict.
        #expect(name["baseEntry"] == Self.number(conflicted.fetched))
        #expect(name["localEntry"] == Self.number(conflicted.edited))
        #expect(name["serverEntry"] == Self.number(conflicted.refetched))
        #expect(field["deletedBy"] == nil)

        let deleted = try #require(conflicts.first { $0["kind"] == "deletedLocally" })
        #expect(deleted["id"] == .string(conflicted.deletedId))
        #expect(deleted["deletedBy"] == Self.number(conflicted.deleted))
        let phone = try #require(deleted["fields"]?.array?.first { $0["path"] == "Phone" })
        #expect(phone["server"] == "555-0100")
        #expect(phone["serverEntry"] == Self.number(conflicted.refetched))
        // The app did not change the phone: its local value is the base, both from the first page.
        #expect(phone["local"] == phone["base"])
        #expect(phone["localEntry"] == Self.number(conflicted.fetched))
        #expect(phone["baseEntry"] == Self.number(conflicted.fetched))

        // The upload's outcome found the server's delete; the app's edit made the local value.
        let gone = try #require(conflicts.first { $0["kind"] == "deletedOnServer" })
        #expect(gone["id"] == .string(conflicted.serverDeletedId))
        #expect(gone["entry"] == Self.number(conflicted.uploaded))
        #expect(gone["deletedBy"] == Self.number(conflicted.uploaded))
        let edit = try #require(gone["fields"]?.array?.first { $0["path"] == "Name" })
        #expect(edit["local"] == "Edited here")
        #expect(edit["server"] == .null)
        #expect(edit["localEntry"] == Self.number(conflicted.serverDeletedEdit))
        #expect(edit["baseEntry"] == Self.number(conflicted.fetched))
        #expect(edit["serverEntry"] == Self.number(conflicted.uploaded))

        #expect(oneSoup.json["conflicts"] == all.json["conflicts"])
        #expect(oneSoup.json["soup"] == "accounts")
        #expect(unknownSoup.status == 404)
        #expect(past.status == 400)
        #expect(past.json["error"]?.string?.contains("current state") == true)
    }

    @Test func theTimelineMarksWhereConflictsWereFoundAndAResolvedOneLeavesThePage() async throws {
        let conflicted = try await ConflictedStore.start()
        let before = try await conflicted.get("/api/timeline").json
        let open = try await conflicted.get("/api/conflicts")
        let edited = try #require(open.json["conflicts"]?.array?.first { $0["kind"] == "fields" })
        let entryId = try #require(edited["entryId"]?.number?.int64Value)
        try conflicted.store.resolveConflict(soup: ConflictedStore.soup, entryId: entryId, .take(.server))
        let after = try await conflicted.get("/api/timeline").json
        let remaining = try await conflicted.get("/api/conflicts")
        await conflicted.stop()

        let refetched = Self.number(conflicted.refetched)
        let uploaded = Self.number(conflicted.uploaded)
        // The page that found two conflicts is marked, and so is the run holding it; so is the
        // upload's outcome that found the third.
        #expect(
            Self.marked(before) == [
                Self.Mark(sequence: refetched, conflicts: 2), Self.Mark(sequence: uploaded, conflicts: 1),
            ])
        let run = (before["groups"]?.array ?? []).first { group in
            group["entries"]?.array?.contains { $0["sequence"] == refetched } == true
        }
        #expect(run?["type"] == "sync-run")
        #expect(run?["conflicts"] == 2)
        #expect(!Self.entries(before).contains { $0["resolvesConflict"] != nil })

        // Resolved, the conflict leaves the page and its page's count; the resolution is marked
        // and links to its record.
        #expect(
            Self.marked(after) == [
                Self.Mark(sequence: refetched, conflicts: 1), Self.Mark(sequence: uploaded, conflicts: 1),
            ])
        let resolution = try #require(Self.entries(after).last)
        #expect(resolution["kind"] == "sync.conflict.resolved")
        #expect(resolution["resolvesConflict"] == true)
        #expect(resolution["records"] == [["soup": "accounts", "id": .string(conflicted.editedId)]])
        #expect(remaining.json["openCount"] == 2)
        #expect(remaining.json["conflicts"]?.array?.map { $0["kind"] }.contains("fields") == false)
    }

    @Test func aBrowserShowsTheConflictsSideBySideAndTheTimelineMarks() async throws {
        let chromium = try HeadlessChromium()
        let conflicted = try await ConflictedStore.start()
        // `journal-replay serve` in its own process, as the browser test runs it, named "store".
        let served: ServedProcess
        do {
            served = try ServedProcess.start(
                try BuiltProduct("journal-replay"), ["serve", "store"],
                currentDirectory: conflicted.storeURL.deletingLastPathComponent())
        } catch {
            await conflicted.stop()
            throw error
        }
        let base = "http://127.0.0.1:\(served.port)"
        let token = "token=\(served.token)"
        let page: String
        let timeline: String
        do {
            page = try await chromium.dumpDOM("\(base)/conflicts?\(token)")
            timeline = try await chromium.dumpDOM("\(base)/timeline?\(token)")
            let scratch = try TemporaryDirectory("inspector-conflicts-screenshot")
            defer { scratch.remove() }
            let images =
                InspectorBrowserTests.refreshesScreenshots ? InspectorBrowserTests.documentedImages : scratch.url
            try await chromium.screenshot(
                "\(base)/conflicts?\(token)", to: images.appendingPathComponent("inspector-conflicts.png"))
        } catch {
            served.stop()
            await conflicted.stop()
            throw error
        }
        served.stop()
        await conflicted.stop()

        #expect(page.contains("3 open conflicts"))
        #expect(page.contains("field conflict"))
        #expect(page.contains("deleted locally, changed on the server"))
        #expect(page.contains("changed locally, deleted on the server"))
        for value in [
            "Mine", "Theirs", "555-0100", "Edited here", conflicted.editedId, conflicted.deletedId,
            conflicted.serverDeletedId,
        ] {
            #expect(page.contains(value), "the Conflicts page does not show \(value)")
        }
        // Each value links to the entry that produced it, as the other pages link entries.
        for sequence in [
            conflicted.fetched, conflicted.edited, conflicted.deleted, conflicted.refetched,
            conflicted.serverDeletedEdit, conflicted.uploaded,
        ] {
            #expect(page.contains("asOf=\(sequence)\">#\(sequence)</a>"), "no link to entry \(sequence)")
        }
        #expect(timeline.contains("conflict-found"))
        #expect(timeline.contains("2 open conflicts"))
    }
}
