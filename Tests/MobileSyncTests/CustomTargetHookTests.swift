import Determinism
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import Soups
import SyncTesting
import Testing

/// The hooks a custom target has besides fetching: what a page saves (Mobile SDK's
/// `cleanAndSaveRecordsToLocalStore` and `getIdsToSkip`) and which dirty records a sync up
/// sends (`getIdsOfRecordsToSyncUp`).
@Suite struct CustomTargetHookTests {
    static let soup = "accounts"

    /// Pages of `PagedTestTarget`, each record saved with an upper-cased copy of its id, and
    /// `C001` never saved.
    struct ShapingTarget: SyncDownTarget {
        var paged: PagedTestTarget
        let addsRecords: Bool
        var idFieldName: String { paged.idFieldName }
        var modificationDateFieldName: String { paged.modificationDateFieldName }
        var isSortedByModificationDate: Bool { true }
        var totalSize: Int64 { paged.totalSize }

        mutating func startFetch(_ context: SyncDownContext, maxTimeStamp: Int64) async throws -> [JSONValue] {
            try await paged.startFetch(context, maxTimeStamp: maxTimeStamp)
        }

        mutating func continueFetch(_ context: SyncDownContext) async throws -> [JSONValue]? {
            try await paged.continueFetch(context)
        }

        func remoteIds(_ context: SyncDownContext, localIds: [String]) async throws -> Set<String> {
            try await paged.remoteIds(context, localIds: localIds)
        }

        func recordsToSave(_ records: [JSONValue], _ context: SyncDownContext) async throws -> [JSONValue] {
            if addsRecords { return records + records }
            return records.compactMap { record in
                guard var members = record.object, let id = record["Id"]?.string, id != "C001" else { return nil }
                members["Shouted"] = .string(id.lowercased() + "!")
                return .object(members)
            }
        }
    }

    static func store(_ directory: TemporaryDirectory) throws -> SyncStore {
        let clock = ManualWallClock(WallTime(millisecondsSinceEpoch: 1_800_000_000_000), tick: .milliseconds(1))
        let store = try SyncStore(
            directory: directory.appending("store"), clock: clock, idGenerator: IncrementingIDGenerator(),
            logger: .discarding)
        try store.soups.registerSoup(soup, indexSpecs: [IndexSpec(path: "Id", type: .string)])
        return store
    }

    static func syncDown(_ store: SyncStore, addsRecords: Bool = false) async throws -> (SyncState, [String]) {
        var registry = SyncDownTargetRegistry()
        let pages = PagedTestTarget.pages(count: 6, pageSize: 2)
        registry.register("shaping") { _ in
            ShapingTarget(paged: PagedTestTarget(pages: pages), addsRecords: addsRecords)
        }
        let clock = ManualWallClock(WallTime(millisecondsSinceEpoch: 1_800_000_000_000), tick: .milliseconds(1))
        let manager = try SyncManager(store: store, client: nil, targets: registry, clock: clock, logger: .discarding)
        let reports = Recorder<String>()
        let final = try await manager.syncDown(
            target: try SyncDownTargetDescriptor(.custom(registryKey: "shaping")), soupName: soup,
            onUpdate: { reports.append($0.progressSummary) })
        return (final, reports.all)
    }

    @Test func aPageSavesWhatTheTargetShapesAndTheJournalHoldsIt() async throws {
        let directory = try TemporaryDirectory("target-hooks")
        defer { directory.remove() }
        let store = try Self.store(directory)
        let (final, reports) = try await Self.syncDown(store)
        #expect(final.status == .done, "\(final.error)")
        #expect(reports.last == "DONE(100,6)", "progress counts the records fetched, as Mobile SDK's does")
        let records = try store.soups.query(QuerySpec.all(Self.soup, orderPath: "Id", pageSize: 100))
        #expect(records.compactMap { $0["Id"]?.string } == ["C000", "C002", "C003", "C004", "C005"])
        #expect(records.allSatisfy { $0["Shouted"]?.string == ($0["Id"]?.string ?? "").lowercased() + "!" })
        #expect(final.maxTimeStamp > 0)
        // A fold of the journal alone, without the target, gives the same soup.
        let report = try store.journal.verify()
        #expect(report.isConsistent, "verify: \(report.divergences)")
    }

    @Test func aTargetThatSavesMoreRecordsThanItFetchedFailsTheRun() async throws {
        let directory = try TemporaryDirectory("target-hooks-more")
        defer { directory.remove() }
        let store = try Self.store(directory)
        let (final, _) = try await Self.syncDown(store, addsRecords: true)
        #expect(final.status == .failed)
        #expect(final.error.contains("recordsToSave returned 4 records for a page of 2"))
        #expect(try store.soups.query(QuerySpec.all(Self.soup, pageSize: 10)).isEmpty)
    }
}

/// A sync-up target that sends only the dirty records whose name starts with "A", to an
/// in-memory server.
struct ChoosingSyncUpTarget: SyncUpTarget {
    let sent: Recorder<String>
    var idFieldName: String { "Id" }
    var modificationDateFieldName: String { "LastModifiedDate" }
    var createFieldlist: [String]? { ["Name"] }
    var updateFieldlist: [String]? { ["Name"] }
    var externalIdFieldName: String? { nil }
    var maxBatchSize: Int { 1 }

    func recordsToSyncUp(_ dirtyRecords: [JSONValue]) async throws -> [JSONValue] {
        dirtyRecords.filter { $0["Name"]?.string?.hasPrefix("A") == true }
    }

    func createOnServer(objectType: String, fields: [String: JSONValue]) async throws -> String {
        let name = fields["Name"]?.string ?? "?"
        sent.append(name)
        return "001" + name
    }

    func upsertOnServer(
        objectType: String, externalIdField: String, externalId: String, fields: [String: JSONValue]
    ) async throws -> String {
        try await createOnServer(objectType: objectType, fields: fields)
    }

    func updateOnServer(objectType: String, id: String, fields: [String: JSONValue]) async throws {
        sent.append(id)
    }

    func deleteOnServer(objectType: String, id: String) async throws {
        sent.append(id)
    }

    func isNewerThanServer(_ record: JSONValue) async throws -> Bool { true }
}

extension CustomTargetHookTests {
    @Test func aSyncUpTargetChoosesWhichDirtyRecordsItSends() async throws {
        let directory = try TemporaryDirectory("target-hooks-up")
        defer { directory.remove() }
        let store = try Self.store(directory)
        for name in ["Acme", "Blue", "Apex"] {
            _ = try store.soups.createLocally(Self.soup, ["Name": .string(name), "attributes": ["type": "Account"]])
        }
        let sent = Recorder<String>()
        var registry = SyncUpTargetRegistry()
        registry.register("choosing") { _, _ in ChoosingSyncUpTarget(sent: sent) }
        let clock = ManualWallClock(WallTime(millisecondsSinceEpoch: 1_800_000_000_000), tick: .milliseconds(1))
        let manager = try SyncManager(
            store: store, client: nil, syncUpTargets: registry, clock: clock, logger: .discarding)
        let final = try await manager.syncUp(
            target: SyncUpTargetDescriptor(.custom(registryKey: "choosing")), options: SyncOptions(),
            soupName: Self.soup)
        #expect(final.status == .done, "\(final.error)")
        #expect(sent.all == ["Acme", "Apex"])
        let dirty = try store.soups.dirtyRecords(Self.soup)
        #expect(dirty.compactMap { $0["Name"]?.string } == ["Blue"], "a record left out stays dirty for a later run")
        let report = try store.journal.verify()
        #expect(report.isConsistent, "verify: \(report.divergences)")
    }
}
