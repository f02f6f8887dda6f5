import Determinism
import EventJournal
import Foundation
import Logging
import LosslessJSON
import MobileSync
import SalesforceAPI
import SalesforceSimulator
import Soups
import ToolSupport

/// The steps of `msync demo`: every one through the library's public API, as an app would.
struct DemoSession {
    let root: URL
    let simulator: SalesforceSimulator
    let server: SimulatorServer
    let logger: Logger

    private static let soup = "accounts"

    func run() async throws {
        // The store is `--store` itself, so `msync --store <it> …` works on what the demo left.
        let store = try SyncStore(directory: root, clock: SystemWallClock(), logger: logger)
        let client = SalesforceClient(
            credentials: SalesforceCredentials(instanceURL: server.url, accessToken: simulator.accessToken),
            logger: logger)
        let manager = try SyncManager(store: store, client: client, clock: SystemWallClock(), logger: logger)
        say("SyncJournal demo: an offline-first session against a Salesforce simulator at \(server.url)")

        step(1, "Set up from userstore.json and usersyncs.json")
        let soups = try store.soups.register(try StoreConfig(parsing: try Self.resource("userstore")))
        let syncs = try await manager.setupSyncs(from: try SyncsConfig(bytes: try Self.resource("usersyncs")))
        say("   soups: \(soups.joined(separator: ", ")); syncs: \(syncs.compactMap(\.name).joined(separator: ", "))")

        step(2, "Sync down every Account (LEAVE_IF_CHANGED), a page per journal entry")
        let down = try await run("accounts", manager)
        say(
            "   \(down.status.rawValue): \(try count(store)) records in the soup, watermark \(Self.time(down.maxTimeStamp))"
        )

        step(3, "Work offline: create, update and delete locally")
        let records = try store.soups.query(QuerySpec.all(Self.soup, orderPath: "Name", pageSize: 3))
        let created = try store.soups.createLocally(
            Self.soup, ["attributes": ["type": "Account"], "Name": "Demo Offline Cafe", "Industry": "Food"])
        let updated = try store.soups.updateLocally(
            Self.soup, entryId: Self.entryId(records[0]), changes: ["Industry": "Energy"])
        _ = try store.soups.deleteLocally(Self.soup, entryId: Self.entryId(records[1]))
        say("   created \(created["Id"]?.string ?? "?"), updated \(updated["Name"]?.string ?? "?"), deleted one")
        say("   dirty records: \(try store.soups.dirtyRecords(Self.soup).count)")

        step(4, "Sync up the local changes (sObject Collections), crash-safe")
        let up = try await run("accountsUp", manager)
        let summary = up.syncUpSummary ?? SyncUpSummary()
        let serverId = try store.soups.retrieve(Self.soup, ids: [Self.entryId(created)]).first?["Id"]?.string ?? "?"
        say(
            "   \(up.status.rawValue): sent \(summary.sent), succeeded \(summary.succeeded), failed \(summary.failed.count)"
        )
        say("   the local record \(created["Id"]?.string ?? "?") is now \(serverId) on the server")

        step(5, "Another user changes the server: two updates and one delete")
        let others = try store.soups.query(QuerySpec.all(Self.soup, orderPath: "Name", order: .descending, pageSize: 3))
        for record in others.prefix(2) {
            try simulator.write(
                type: "Account", id: record["Id"]?.string, fields: ["Industry": "Changed elsewhere"])
        }
        let ghost = others[2]["Id"]?.string ?? ""
        try simulator.delete(type: "Account", id: ghost)
        say(
            "   updated \(others.prefix(2).compactMap { $0["Name"]?.string }.joined(separator: " and ")); deleted \(ghost)"
        )

        step(6, "reSync: fetch only what changed since the watermark")
        let before = simulator.requestLog().count
        let again = try await run("accounts", manager)
        let soql = simulator.requestLog().dropFirst(before).compactMap { $0["query"]?.string }.first ?? ""
        say(
            "   \(again.status.rawValue): fetched \(again.fetchedCount) records, \(again.changedCount) changed since "
                + "(step 4's and the other user's)"
        )
        say("   query sent: \(Self.decodedQuery(soql))")

        step(7, "Clean ghosts: remove this sync's records the server no longer has")
        let removed = try await manager.cleanResyncGhosts(name: "accounts")
        say("   deleted \(removed) ghost record(s); \(try count(store)) records in the soup")

        try await mergeAndConflict(store, manager)

        step(9, "Verify: every projection equals a rebuild from the journal")
        let report = try store.journal.verify()
        say("   \(report.isConsistent ? "ok" : "DIVERGED"): \(report.lastSequence) entries verified")
        guard report.isConsistent else { throw UsageFailure("the demo journal did not verify") }

        let path = root.path
        say("\nThe store is at \(path). Look inside with:")
        say("   swift run msync --store \(path) status")
        say("   swift run journal-replay info \(path)")
        say("   swift run journal-replay log \(path) --kind sync.down.page")
        say("   swift run journal-replay state \(path) --soup accounts")
        say("   swift run journal-replay blame \(path) accounts \(serverId)")
        say("   swift run journal-replay verify \(path)")
    }

    /// Step 8: two users edit two records; MERGE_FIELDS keeps both edits of one and lists the
    /// one true conflict, which the app resolves; the sync up sends only the app's own field.
    private func mergeAndConflict(_ store: SyncStore, _ manager: SyncManager) async throws {
        step(8, "Two users, one record: MERGE_FIELDS merges field by field and lists true conflicts")
        let query = "SELECT Id, Name, Industry, BillingCity, LastModifiedDate FROM Account"
        try await manager.createSyncDown(
            target: try SyncDownTargetDescriptor(.soql(query: query)), options: SyncOptions(mergeMode: .mergeFields),
            soupName: Self.soup, name: "accountsMerge")
        _ = try await run("accountsMerge", manager)
        let pair = try store.soups.query(QuerySpec.all(Self.soup, orderPath: "Name", pageSize: 8)).suffix(2)
        guard let merged = pair.first, let conflicted = pair.last, let mergedId = merged["Id"]?.string,
            let conflictedId = conflicted["Id"]?.string, let name = conflicted["Name"]?.string
        else { throw UsageFailure("the demo org has too few accounts") }
        try store.soups.updateLocally(Self.soup, entryId: Self.entryId(merged), changes: ["Industry": "Retail"])
        try store.soups.updateLocally(
            Self.soup, entryId: Self.entryId(conflicted), changes: ["Name": .string(name + " (renamed here)")])
        try simulator.write(type: "Account", id: mergedId, fields: ["BillingCity": "Lyon"])
        try simulator.write(type: "Account", id: conflictedId, fields: ["Name": .string(name + " (renamed there)")])
        say("   here: \(mergedId) Industry = Retail, \(conflictedId) renamed; there: BillingCity = Lyon, renamed too")
        _ = try await run("accountsMerge", manager)
        let after = try store.soups.retrieve(Self.soup, ids: [Self.entryId(merged)]).first
        say(
            "   merged \(mergedId): Industry \(after?["Industry"]?.serializedString ?? "?") (here), "
                + "BillingCity \(after?["BillingCity"]?.serializedString ?? "?") (there)")
        for conflict in try store.conflicts(soup: Self.soup) {
            for field in conflict.fields {
                say(
                    "   conflict \(conflict.id ?? "?") \(field.path): base \(field.base?.serializedString ?? "-"), "
                        + "here \(field.local?.serializedString ?? "-"), there \(field.server?.serializedString ?? "-")"
                )
            }
        }
        try store.resolveConflict(soup: Self.soup, entryId: Self.entryId(conflicted), .take(.server))
        say("   resolved: \(conflictedId) takes the other user's name; open conflicts: \(try store.conflicts().count)")
        let before = simulator.requestLog().count
        try await manager.createSyncUp(
            options: SyncOptions(mergeMode: .mergeFields, fieldlist: ["Name", "Industry", "BillingCity"]),
            soupName: Self.soup, name: "accountsMergeUp")
        let up = try await run("accountsMergeUp", manager)
        let bodies = simulator.requestLog().dropFirst(before).filter { $0["method"]?.string == "PATCH" }
            .compactMap { $0["body"]?.string }
        say(
            "   sync up \(up.status.rawValue): sent \(up.syncUpSummary?.sent ?? 0); PATCH \(bodies.joined(separator: " "))"
        )
    }

    /// Runs the named sync with a progress display and returns its final state.
    private func run(_ name: String, _ manager: SyncManager) async throws -> SyncState {
        let progress = ProgressReporterBox(ProgressReporter("   \(name)"))
        let final = try await manager.reSync(name: name) { state in
            if state.status == .running { progress.update(Int64(state.progress), of: 100) }
        }
        progress.update(100, of: 100)
        progress.finish()
        guard final.status == .done else {
            throw UsageFailure("sync \(name) ended \(final.status.rawValue): \(final.error)")
        }
        return final
    }

    private func count(_ store: SyncStore) throws -> Int {
        try store.soups.count(QuerySpec.all(Self.soup))
    }

    /// Writes a line to standard output at once: progress goes to standard error, and unbuffered
    /// lines keep the two in order when both go to one file or pipe.
    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private func step(_ number: Int, _ title: String) {
        say("\n\(number). \(title)")
    }

    private static func resource(_ name: String) throws -> [UInt8] {
        guard let url = Bundle.module.url(forResource: name, withExtension: "json"),
            let data = FileManager.default.contents(atPath: url.path)
        else { throw UsageFailure("the demo's \(name).json is missing from msync's resources") }
        return Array(data)
    }

    private static func entryId(_ record: JSONValue) -> Int64 {
        record["_soupEntryId"]?.number?.int64Value ?? 0
    }

    private static func time(_ milliseconds: Int64) -> String {
        WallTime(millisecondsSinceEpoch: milliseconds).salesforceFormat
    }

    private static func decodedQuery(_ query: String) -> String {
        var components = URLComponents()
        components.percentEncodedQuery = query.replacing("+", with: "%20")
        return components.queryItems?.first { $0.name == "q" }?.value ?? query
    }
}
