import Determinism
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import SalesforceSimulator
import Soups
import SyncTesting
import Synchronization
import Testing

/// Kills `msync resync` with SIGKILL while it uploads 1,000 creates, restarts it, and checks
/// what DESIGN invariant 6 promises: with an external id the server ends with exactly one
/// record per create and every local record is clean with its server id; without one, every
/// create that may have been sent twice is listed in the sync state — none silently.
///
/// The simulator runs in this process, so a response observer can kill the child right after
/// the server committed a request and before its answer left (the outcome can then never be
/// journaled); in the other rounds the child kills itself at a seeded commit of its journal,
/// just before or after it journals an intent, an outcome or its state.
@Suite(.serialized) struct SyncUpCrashTests {
    static let recordCount = 1_000
    static let soup = "accounts"

    let msync: BuiltProduct
    let directory: TemporaryDirectory

    init() throws {
        msync = try BuiltProduct("msync")
        directory = try TemporaryDirectory("sync-up-crash")
    }

    @Test func upsertsKilledAtTwentyFourMomentsEndWithExactlyOneServerRecordEach() async throws {
        defer { directory.remove() }
        let killed = try await crashRounds(24, seed: 20_261_123, externalIdField: "ExternalId__c") {
            store, org, round in
            let server = org.simulator.liveRecords(type: "Account")
            #expect(server.count == Self.recordCount, "\(round): \(server.count) server records")
            #expect(Set(server.compactMap { $0["ExternalId__c"]?.string }).count == Self.recordCount)
            let local = try localRecords(store)
            #expect(local.allSatisfy { $0["__local__"] == false }, "\(round): dirty records remain")
            let serverIds = Set(server.compactMap { $0["Id"]?.string })
            #expect(Set(local.compactMap { $0["Id"]?.string }) == serverIds, "\(round)")
        }
        #expect(killed == 24, "only \(killed) of 24 rounds ended the child at their moment")
    }

    @Test func withoutAnExternalIdEveryPossibleDuplicateIsListedInTheSyncState() async throws {
        defer { directory.remove() }
        var duplicatesSeen = 0
        let killed = try await crashRounds(8, seed: 7, externalIdField: nil) { store, org, round in
            let server = org.simulator.liveRecords(type: "Account")
            let copiesByName = Dictionary(grouping: server) { $0["Name"]?.string ?? "" }
            let duplicatedNames = Set(copiesByName.filter { $0.value.count > 1 }.keys)
            duplicatesSeen += server.count - Self.recordCount
            let listed = try Set(reopen(store).syncState(named: "up")?.syncUpSummary?.possibleDuplicates ?? [])
            let local = try localRecords(store)
            for record in local where duplicatedNames.contains(record["Name"]?.string ?? "") {
                let entryId = record["_soupEntryId"]?.number?.int64Value ?? 0
                #expect(listed.contains(entryId), "\(round): entry \(entryId) duplicated silently")
            }
            #expect(local.allSatisfy { $0["__local__"] == false }, "\(round): dirty records remain")
        }
        // Exact-commit kills must produce duplicates, or the test proves nothing.
        #expect(duplicatesSeen > 0)
        #expect(killed == 8, "only \(killed) of 8 rounds ended the child at their moment")
    }

    // MARK: - Rounds

    /// Runs `count` rounds from one prepared store, each ended at a seeded moment and resumed;
    /// `check` inspects each round's store and org, then `verify` must pass.
    /// - Returns: how many rounds ended the child at their moment.
    private func crashRounds(
        _ count: Int, seed: UInt64, externalIdField: String?,
        check: (_ store: URL, _ org: CrashOrg, _ round: String) throws -> Void
    ) async throws -> Int {
        let org = try await CrashOrg.start()
        let template = try await makeStore(externalIdField: externalIdField)
        var killed = 0
        // Five requests of 200 records, each journaling an intent and an outcome: at least ten
        // commits of the journal in every run.
        let moments = CrashMoment.seeded(count, requests: 5, journalCommits: 10, seed: seed)
        for (round, moment) in moments.enumerated() {
            org.simulator.reset()
            let store = try copy(template, round: round)
            let landed = try await org.killAndResume(msync, store: store, at: moment) { method, path in
                path.contains("/composite/sobjects") && method != "GET"
            }
            killed += landed ? 1 : 0
            try check(store, org, "round \(round), \(moment)")
            #expect(try verifies(store), "round \(round), \(moment)")
        }
        await org.stop()
        return killed
    }

    // MARK: - Stores

    /// A store with 1,000 records created locally and a sync up named `up` (collection target).
    private func makeStore(externalIdField: String?) async throws -> URL {
        let url = directory.appending("template")
        let store = try reopen(url)
        try store.soups.registerSoup(
            Self.soup,
            indexSpecs: [IndexSpec(path: "Id", type: .string), IndexSpec(path: "ExternalId__c", type: .string)])
        let records: [JSONValue] = (1...Self.recordCount).map { number in
            [
                "attributes": ["type": "Account"], "Id": .string("local_\(number)"), "Name": .string("Crash \(number)"),
                "ExternalId__c": .string("CRASH-\(number)"), "__local__": true, "__locally_created__": true,
                "__locally_updated__": false, "__locally_deleted__": false,
            ]
        }
        _ = try store.soups.create(Self.soup, records)
        var target = SyncUpTargetDescriptor()
        target.externalIdFieldName = externalIdField
        let fields = externalIdField == nil ? ["Name"] : ["Name", "ExternalId__c"]
        _ = try await SyncManager(store: store, client: nil, clock: SystemWallClock(), logger: .discarding)
            .createSyncUp(
                target: target, options: SyncOptions(mergeMode: .overwrite, fieldlist: fields), soupName: Self.soup,
                name: "up")
        return url
    }

    private func copy(_ template: URL, round: Int) throws -> URL {
        let url = directory.appending("round-\(round)")
        try FileManager.default.copyItem(at: template, to: url)
        return url
    }

    private func reopen(_ url: URL) throws -> SyncStore {
        try SyncStore(directory: url, clock: SystemWallClock(), logger: .discarding)
    }

    private func localRecords(_ url: URL) throws -> [JSONValue] {
        try reopen(url).soups.query(QuerySpec.all(Self.soup, orderPath: "_soupEntryId", pageSize: Self.recordCount))
    }

    private func verifies(_ url: URL) throws -> Bool {
        try reopen(url).journal.verify().isConsistent
    }
}
