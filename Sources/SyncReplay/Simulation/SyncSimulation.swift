import Determinism
import EventJournal
import Foundation
import Logging
import LosslessJSON
import MobileSync
import SalesforceAPI
import SalesforceSimulator
import Soups

/// A seeded simulation of an offline-first app: random interleavings of local edits, edits by
/// another client on the server (some dated in the second of the last sync, or a little before
/// it, as long transactions are), sync down and up, reSync, ghost cleaning, network faults,
/// token expiry, process crashes and power losses, with the product's invariants checked after
/// every step.
///
/// Everything is deterministic for a seed: the simulator runs in-process with a logical clock
/// and seeded faults, the store's clock and ids are manual, and the client's jitter is seeded.
/// After every step:
///
/// - `verify` finds the projections equal to a rebuild from the journal;
/// - no local change is lost: a record the app created or edited is still there, dirty with the
///   app's value, until a sync up records an outcome, and then the server holds that value;
/// - no server record is created twice (creates are upserted by an external id);
/// - the sync down's watermark is never ahead of the pages it stored;
/// - ghost cleaning removes only clean records of its own sync, and clean records that no sync
///   down owns and the server no longer has.
///
/// At the end, with faults off, sync up then sync down (and ghost cleaning) must leave the soup
/// and the server with the same records, every one of them.
///
/// A run with `mergeFields` syncs the accounts soup with MERGE_FIELDS (`MergeMode.mergeFields`)
/// both ways (docs/conflicts.md): the app and the server edit its Name or its Phone, the app
/// resolves some conflicts after each sync down and every one at the end, and after every step
/// no local field edit has disappeared unless a resolution took the server's value, and every
/// conflict lists values both sides really had.
public final class SyncSimulation {
    /// What a run found.
    public struct Outcome: Sendable {
        /// The steps run (all of them unless one failed).
        public var stepsRun: Int
        /// The first invariant that failed, with the step that broke it; `nil` when none did.
        public var failure: String?
        /// How many syncs ended DONE and how many FAILED or STOPPED.
        public var syncsDone = 0
        /// See ``syncsDone``.
        public var syncsFailed = 0
        /// How many entries compaction steps removed.
        public var entriesCompacted: UInt64 = 0
        /// How many process crashes (the store reopened without being closed) the run went through.
        public var crashes = 0
        /// How many power losses (unsynced projection files damaged, a new boot, the store
        /// reopened) the run went through.
        public var powerLosses = 0
        /// Clean records that no sync down owned and the server no longer had, removed by ghost
        /// cleaning: created here, uploaded, then deleted on the server before any sync down
        /// fetched them (decision 0319).
        public var unownedRecordsCleaned = 0
        /// How many conflicts the app resolved (`mergeFields` runs only).
        public var conflictsResolved = 0
    }

    static let soup = "accounts"
    /// Never dialled: requests go to the simulator in-process.
    static let instanceURL = URL(string: "http://simulated.invalid") ?? URL(fileURLWithPath: "/")
    static let accountsAtStart = 12
    /// The sync down's `reSyncOverlapSeconds`: late server edits start at most this long ago.
    static let reSyncOverlapSeconds = 2

    let seed: UInt64
    /// Whether the accounts soup syncs with MERGE_FIELDS (else LEAVE_IF_CHANGED down, OVERWRITE up).
    let mergeFields: Bool
    private let directory: ScratchDirectory
    let clock: ManualWallClock
    private let boot = ManualBootIdentity()
    let simulator: SalesforceSimulator
    private let client: SalesforceClient
    var store: SyncStore?
    var manager: SyncManager?
    private var faultsOn = false
    var createdCount = 0
    private var downSyncId: Int64 = 0
    /// How far `pagesNewest` has scanned the journal, and the newest page watermark it saw.
    private var pagesScan = (through: UInt64(0), newest: Int64(-1))
    /// The app's changes not yet confirmed by an upload outcome: `_soupEntryId` → field → value.
    var pending: [Int64: [String: String]] = [:]
    /// Every value each server record's fields held after a step, as `Id` → field → the
    /// values' JSON (`mergeFields` runs only): what a conflict may say the server had.
    var serverValuesSeen: [String: [String: Set<String>]] = [:]
    var outcome: Outcome
    /// The parent/children soups' state: see SyncSimulation+Trees.swift.
    var trees = TreeState()

    private init(seed: UInt64, mergeFields: Bool) throws {
        self.seed = seed
        self.mergeFields = mergeFields
        directory = try ScratchDirectory("simulation")
        clock = ManualWallClock(WallTime(millisecondsSinceEpoch: 1_800_000_000_000), tick: .milliseconds(1))
        let logger = Logger.discarding
        let accounts = (1...Self.accountsAtStart).map { number -> (type: String, fields: [String: JSONValue]) in
            (type: "Account", fields: ["Name": .string("Server \(number)"), "ExternalId__c": .string("SRV-\(number)")])
        }
        simulator = try SalesforceSimulator(
            configuration: SalesforceSimulator.Configuration(
                data: SimulatorData(
                    schema: OrgSchema.standard.withCascadeDelete(type: "Contact", field: "AccountId"), records: accounts
                ),
                accessToken: "simulation-token", seed: seed),
            sleepClock: ImmediateClock(), logger: logger)
        client = SalesforceClient(
            credentials: SalesforceCredentials(
                instanceURL: Self.instanceURL, accessToken: "simulation-token",
                refreshToken: "simulator-refresh-token", clientID: "simulation"),
            transport: SimulatorTransport(simulator), clock: ImmediateClock(), randomSeed: seed, logger: logger)
        outcome = Outcome(stepsRun: 0)
    }

    /// The step list of `seed`: random steps, with a compaction after every
    /// ``compactionEvery`` of them.
    public static func steps(seed: UInt64, count: Int) -> [SimulationStep] {
        var random = SplitMix64(seed: seed)
        var steps: [SimulationStep] = []
        while steps.count < count {
            steps.append(SimulationStep.random(using: &random))
            if steps.count % compactionEvery == compactionEvery - 1, steps.count < count {
                // Between 5 and 60 entries kept, from the position alone: no random draw.
                steps.append(.compact(keep: UInt64(5 + steps.count * 7 % 56)))
            }
        }
        return steps
    }

    /// How often the step list compacts the journal explicitly (beside the automatic
    /// compactions its stores' retention policy makes).
    public static let compactionEvery = 25

    /// Runs `steps` against a fresh store and simulator made from `seed`; with `mergeFields`,
    /// the accounts soup syncs with MERGE_FIELDS.
    public static func run(seed: UInt64, steps: [SimulationStep], mergeFields: Bool = false) async throws -> Outcome {
        let simulation = try SyncSimulation(seed: seed, mergeFields: mergeFields)
        defer { simulation.directory.remove() }
        return try await simulation.run(steps)
    }

    /// Runs the seed's steps; on a failure, searches for a shorter step list that still fails.
    ///
    /// - Returns: the outcome, and the shortest failing step list found (empty when none failed).
    public static func campaign(
        seed: UInt64, steps count: Int, shrinkAttemptsMax: Int = 200, mergeFields: Bool = false
    ) async throws -> (outcome: Outcome, shortest: [SimulationStep]) {
        let steps = Self.steps(seed: seed, count: count)
        let first = try await run(seed: seed, steps: steps, mergeFields: mergeFields)
        guard first.failure != nil else { return (first, []) }
        var shortest = Array(steps.prefix(first.stepsRun))
        var attempts = 0
        var chunk = max(1, shortest.count / 2)
        // Delta debugging: drop runs of steps, halving the run length when nothing more can go.
        while attempts < shrinkAttemptsMax {
            var start = 0
            var removedAny = false
            while start < shortest.count, attempts < shrinkAttemptsMax {
                var candidate = shortest
                candidate.removeSubrange(start..<min(start + chunk, candidate.count))
                attempts += 1
                let result = try await run(seed: seed, steps: candidate, mergeFields: mergeFields)
                if result.failure != nil {
                    shortest = Array(candidate.prefix(result.stepsRun))
                    removedAny = true
                } else {
                    start += chunk
                }
            }
            if !removedAny {
                guard chunk > 1 else { break }
                chunk = max(1, chunk / 2)
            }
        }
        return (first, shortest)
    }

    // MARK: - Running

    private func run(_ steps: [SimulationStep]) async throws -> Outcome {
        try reopen()
        try store?.soups.registerSoup(
            Self.soup,
            indexSpecs: [
                IndexSpec(path: "Id", type: .string), IndexSpec(path: "ExternalId__c", type: .string),
                IndexSpec(path: "__local__", type: .string),
            ])
        let fields = mergeFields ? "Id, Name, Phone, ExternalId__c" : "Id, Name, ExternalId__c"
        let down = try await manager?.createSyncDown(
            target: try SyncDownTargetDescriptor(
                .soql(query: "SELECT \(fields), LastModifiedDate FROM Account"),
                reSyncOverlapSeconds: Self.reSyncOverlapSeconds),
            options: SyncOptions(mergeMode: mergeFields ? .mergeFields : .leaveIfChanged), soupName: Self.soup,
            name: "down")
        downSyncId = down?.id ?? 0
        var upTarget = SyncUpTargetDescriptor()
        upTarget.externalIdFieldName = "ExternalId__c"
        try await manager?.createSyncUp(
            target: upTarget,
            options: SyncOptions(
                mergeMode: mergeFields ? .mergeFields : .overwrite,
                fieldlist: Self.editedFields(mergeFields: mergeFields) + ["ExternalId__c"]),
            soupName: Self.soup, name: "up")
        try await setUpTrees()
        try setUpNotes()
        noteServerValues()
        for (number, step) in steps.enumerated() {
            outcome.stepsRun = number + 1
            do {
                try await perform(step)
                try check()
            } catch let failure as InvariantFailure {
                outcome.failure = "step \(number + 1) (\(step)): \(failure.message)"
                return outcome
            }
        }
        do {
            try await converge()
        } catch let failure as InvariantFailure {
            outcome.failure = "after the last step, faults off: \(failure.message)"
        }
        return outcome
    }

    private func perform(_ step: SimulationStep) async throws {
        guard let store, let manager else { return }
        switch step {
        case .localCreate:
            createdCount += 1
            let name = "Local \(seed)-\(createdCount)"
            let record = try store.soups.createLocally(
                Self.soup,
                [
                    "attributes": ["type": "Account"], "Name": .string(name),
                    "ExternalId__c": .string("LOC-\(createdCount)"),
                ])
            pending[try Self.entryId(record)] = ["Name": name]
        case .localUpdate(let pick):
            guard let record = try pickRecord(pick, where: { !Self.flag($0, "__locally_deleted__") }) else { return }
            let (field, value) = editedField(pick, prefix: "Edited \(clock.now().millisecondsSinceEpoch)")
            _ = try store.soups.updateLocally(
                Self.soup, entryId: Self.entryId(record), changes: [field: .string(value)])
            pending[try Self.entryId(record), default: [:]][field] = value
        case .localDelete(let pick):
            guard let record = try pickRecord(pick, where: { !Self.flag($0, "__locally_deleted__") }) else { return }
            _ = try store.soups.deleteLocally(Self.soup, entryId: Self.entryId(record))
            pending[try Self.entryId(record)] = nil
        case .serverCreate, .serverUpdate, .serverLateUpdate, .serverDelete:
            try performOnTheServer(step)
        case .syncDown:
            count(try await manager.reSync(name: "down"))
            if mergeFields { try resolveConflicts(store, all: false) }
        case .syncUp:
            try await syncUp(manager, store)
        case .cleanGhosts:
            try await cleanGhosts(manager, store)
        case .faults(let on):
            faultsOn = on
            simulator.setFaultPlan(on ? Self.faultPlan(seed: seed) : .none)
        case .expireToken:
            simulator.expireAccessTokens()
        case .crash:
            outcome.crashes += 1
            store.journal.abandon()
            try reopen()
        case .powerLoss(let damage):
            outcome.powerLosses += 1
            store.journal.abandon()
            try PowerLossDamage.damageUnsyncedProjections(of: directory.appending("store"), how: damage)
            boot.restart()
            try reopen()
        case .compact(let keep):
            let report = try store.journal.compact(retention: RetentionPolicy(entryCount: keep))
            outcome.entriesCompacted += report.removedEntries
        case .treeCreate, .childCreate, .childUpdate, .childDelete, .treeParentUpdate, .treeParentDelete,
            .serverChildCreate, .serverChildUpdate, .serverChildDelete, .treeDown, .treeUp, .cleanTreeGhosts:
            try await performTree(step, manager, store)
        }
    }

    /// A change another user makes on the server.
    private func performOnTheServer(_ step: SimulationStep) throws {
        switch step {
        case .serverCreate:
            createdCount += 1
            try simulator.write(
                type: "Account",
                fields: ["Name": .string("Remote \(createdCount)"), "ExternalId__c": .string("REM-\(createdCount)")])
        case .serverUpdate(let pick):
            let ids = try serverIds()
            guard !ids.isEmpty else { return }
            let (field, value) = editedField(pick >> 9, prefix: "Remote edit \(pick % 1000)")
            try simulator.write(
                type: "Account", id: ids[Int(pick % UInt64(ids.count))], fields: [field: .string(value)])
        case .serverLateUpdate(let pick):
            let ids = try serverIds()
            guard !ids.isEmpty else { return }
            let secondsBack = Int64(pick / 1000 % UInt64(Self.reSyncOverlapSeconds + 1))
            let started = simulator.now.millisecondsSinceEpoch - secondsBack * 1000
            let (field, value) = editedField(pick >> 9, prefix: "Late edit \(pick % 1000)")
            try simulator.write(
                type: "Account", id: ids[Int(pick % UInt64(ids.count))], fields: [field: .string(value)],
                modifiedAt: WallTime(millisecondsSinceEpoch: started))
        case .serverDelete(let pick):
            let ids = try serverIds()
            guard !ids.isEmpty else { return }
            try simulator.delete(type: "Account", id: ids[Int(pick % UInt64(ids.count))])
        default:
            return
        }
    }

    func syncUp(_ manager: SyncManager, _ store: SyncStore) async throws {
        let before = pending
        // Two records of the soup can name one server record: a tree upsert by external id
        // recreated it and a sync down fetched it beside the copy kept from a deleted-on-server
        // conflict. Mobile Sync sends both in soup-entry order, so the kept copy's upsert lands
        // on the record the other copy's delete then removes. As in the tree model (decision
        // 0324), the app's newer action wins: a delete newer than the copy's change settles it.
        let records = try allRecords()
        let deletedAt = Dictionary(
            records.filter { Self.flag($0, LocalFlags.locallyDeleted) }.compactMap { record in
                record["Id"]?.string.map { ($0, Self.lastChanged(record)) }
            },
            uniquingKeysWith: max)
        let changedAt = Dictionary(
            try records.map { (try Self.entryId($0), Self.lastChanged($0)) }, uniquingKeysWith: max)
        count(try await manager.reSync(name: "up"))
        // A record the upload cleaned must hold the app's values on the server now.
        for (entryId, changes) in before {
            guard let record = try store.soups.retrieve(Self.soup, ids: [entryId]).first, !LocalFlags.isDirty(record)
            else {
                continue
            }
            let id = record["Id"]?.string ?? ""
            if serverRecord(id) == nil, let deleted = deletedAt[id], deleted > changedAt[entryId] ?? .max {
                pending[entryId] = nil
                continue
            }
            let server = serverRecord(id)
            for (field, value) in changes where server?[field]?.string != value {
                let history = try RecordHistory(journal: store.journal, soup: Self.soup, id: String(entryId)).events
                    .map { "#\($0.sequence) \($0.kind) \($0.action) \($0.record?[field]?.string ?? "")" }
                throw InvariantFailure(
                    "record \(entryId) was cleaned but the server has \(server?[field]?.string ?? "nothing") in "
                        + "\(field) of \(id), not \(value); its history: \(history)")
            }
            pending[entryId] = nil
        }
    }

    /// Cleans ghosts, then checks what went: only clean records of the sync, and clean records
    /// no sync down owned that the server no longer has.
    private func cleanGhosts(_ manager: SyncManager, _ store: SyncStore) async throws {
        let before = try allRecords()
        do {
            _ = try await manager.cleanResyncGhosts(name: "down")
        } catch is SalesforceError, is TransportFailure {
            outcome.syncsFailed += 1
        }
        let server = serverRecords()
        for record in before where try store.soups.retrieve(Self.soup, ids: [Self.entryId(record)]).isEmpty {
            let owner = record["__sync_id__"] ?? .null
            let isClean = record["__local__"] == false
            if isClean, owner.number?.int64Value == downSyncId { continue }
            guard isClean, owner.isNull, server[record["Id"]?.string ?? ""] == nil else {
                throw InvariantFailure(
                    "ghost cleaning removed record \(try Self.entryId(record)), which was dirty, another sync's, "
                        + "or still on the server: \(record.serializedString)")
            }
            outcome.unownedRecordsCleaned += 1
        }
    }

    /// Faults off, then sync up, sync down and clean ghosts: the soup must equal the server.
    /// A MERGE_FIELDS run resolves every conflict first, and syncs again while records are held
    /// for a merge.
    private func converge() async throws {
        simulator.setFaultPlan(.none)
        guard let manager, let store else { return }
        try await sendTrees(manager, store)
        if mergeFields {
            try await convergeMerging(manager, store)
        } else {
            try await syncUp(manager, store)
            count(try await manager.reSync(name: "down"))
        }
        try await cleanGhosts(manager, store)
        try check()
        try checkNotes()
        let local = try allRecords()
        if let dirty = local.first(where: LocalFlags.isDirty) {
            throw InvariantFailure("record \(try Self.entryId(dirty)) is still dirty after a fault-free sync up")
        }
        let serverNames = serverRecords()
        // Every record, with no exemption: ghost cleaning also removes the uploaded creates the
        // server deleted before a sync down owned them (decision 0319).
        let localNames = Dictionary(local.map { ($0["Id"]?.string ?? "", compared($0)) }) { first, _ in
            first
        }
        guard localNames == serverNames else {
            let onlyLocal = Set(localNames.keys).subtracting(serverNames.keys).sorted()
            let onlyServer = Set(serverNames.keys).subtracting(localNames.keys).sorted()
            let differing = localNames.keys.filter { serverNames[$0] != nil && serverNames[$0] != localNames[$0] }
                .sorted()
            let history = try (onlyLocal.first ?? differing.first).map { id in
                try RecordHistory(journal: store.journal, soup: Self.soup, id: id).events.map {
                    "#\($0.sequence) \($0.action)"
                }
            }
            throw InvariantFailure(
                "the soup and the server differ: only local \(onlyLocal), only on the server \(onlyServer), "
                    + "different names \(differing); history of the first: \(history ?? [])")
        }
        try await convergeTrees(manager, store)
        try checkHistories(store)
    }

    /// `blame` tells what the fold did: the last event of every record's history holds the
    /// record as stored, and an event that left a record alone holds it as the one before.
    /// Records untouched since the horizon (the journal is compacted) have no events.
    private func checkHistories(_ store: SyncStore) throws {
        let records = try allRecords()
        let ids = try records.map { String(try Self.entryId($0)) }
        let histories = try RecordHistory.histories(journal: store.journal, soup: Self.soup, ids: ids)
        for (record, history) in zip(records, histories) {
            guard let last = history.events(ofEntryId: try Self.entryId(record)).last else { continue }
            guard last.record == record else {
                throw InvariantFailure(
                    "blame's last event of record \(history.id), #\(last.sequence) \(last.action), holds "
                        + "\(last.record?.serializedString ?? "no record"), the soup \(record.serializedString)")
            }
            if let unexplained = history.events.first(where: { $0.action.hasSuffix("(no rule said why)") }) {
                throw InvariantFailure("blame cannot say why #\(unexplained.sequence) \(unexplained.action)")
            }
            let events = history.events(ofEntryId: try Self.entryId(record))
            for (before, event) in zip(events, events.dropFirst())
            where event.action.hasSuffix("left as it was") && event.record != before.record {
                throw InvariantFailure(
                    "blame says #\(event.sequence) left record \(history.id) as it was, but it changed")
            }
        }
    }

    // MARK: - Invariants

    private func check() throws {
        guard let store else { return }
        let report = try store.journal.verify()
        guard report.isConsistent else { throw InvariantFailure("verify found \(report.divergences)") }
        for (entryId, changes) in pending {
            guard let record = try store.soups.retrieve(Self.soup, ids: [entryId]).first else {
                throw InvariantFailure("record \(entryId), changed locally to \(changes), was lost")
            }
            for (field, value) in changes where record[field]?.string != value || !LocalFlags.isDirty(record) {
                // A merge whose local changes all equal the server's leaves the record clean.
                guard mergeFields, record[field]?.string == value else {
                    throw InvariantFailure(
                        "record \(entryId) lost its local change \(field) \(value): \(record.serializedString)")
                }
            }
            if !LocalFlags.isDirty(record) { pending[entryId] = nil }
        }
        if mergeFields { try checkConflicts(store) }
        if let state = try store.syncState(id: downSyncId), state.maxTimeStamp > 0 {
            let newest =
                try allRecords().compactMap { $0["LastModifiedDate"]?.string }.compactMap(WallTime.init(iso8601:))
                .map(\.millisecondsSinceEpoch).max() ?? -1
            guard state.maxTimeStamp <= max(newest, try pagesNewest(store)) else {
                throw InvariantFailure("the watermark \(state.maxTimeStamp) is ahead of every stored record")
            }
        }
        try checkTrees(store)
    }

    /// The newest `maxTimeStamp` of the sync down's fetched pages. Compaction removes old pages,
    /// so the scan goes on from where the last one stopped and remembers what it saw.
    private func pagesNewest(_ store: SyncStore) throws -> Int64 {
        try store.journal.read { reader in
            let last = try reader.lastSequence
            let first = max(try reader.firstSequence, pagesScan.through + 1)
            guard last >= first else { return }
            try reader.forEachEntry(in: first...last) { entry in
                if entry.kind == .syncDownPageFetched, entry.header["syncId"]?.integer == downSyncId {
                    pagesScan.newest = max(pagesScan.newest, entry.header["maxTimeStamp"]?.integer ?? -1)
                }
                return true
            }
            pagesScan.through = last
        }
        return pagesScan.newest
    }

    // MARK: - Helpers

    /// Checkpoints every few steps' worth of entries, so power losses restore recent ones.
    static let checkpointEntryCountMax: UInt64 = 40

    /// The journal keeps its newest entries only and compacts itself as steps append (at 125%
    /// of this), so every kind of step also runs over a compacted journal, and compactions are
    /// interrupted by crashes and power losses.
    static let retention = RetentionPolicy(entryCount: 120)

    /// Odd seeds run on an encrypted store (which keeps no plaintext compaction archive), so
    /// crashes, power losses and compactions also meet sealed values; even seeds on a plaintext
    /// one with an archive. What the store decides is the same either way.
    var isEncrypted: Bool {
        seed % 2 == 1
    }

    func reopen() throws {
        manager = nil
        store = nil
        var options = JournalOptions()
        options.bootIdentity = boot
        options.checkpoints.entryCountMax = Self.checkpointEntryCountMax
        options.retention = Self.retention
        if isEncrypted {
            options.encryption = try StoreKey(
                bytes: withUnsafeBytes(of: seed.bigEndian) { Array($0) } + [UInt8](repeating: 0xE5, count: 24))
        } else {
            options.compactionArchive = directory.appending("archive.jsonl")
        }
        let store = try SyncStore(
            directory: directory.appending("store"), clock: clock, idGenerator: ClockIDGenerator(clock: clock),
            options: options, logger: Logger.discarding)
        self.store = store
        manager = try SyncManager(
            store: store, client: client, clock: clock,
            logger: Logger.discarding)
    }

    func count(_ state: SyncState) {
        if state.status == .done { outcome.syncsDone += 1 } else { outcome.syncsFailed += 1 }
    }

    private static func faultPlan(seed: UInt64) -> FaultPlan {
        FaultPlan(
            seed: seed, serverErrorRate: 0.2,
            rules: [
                FaultRule(path: "/services/data", drop: .beforeCommit, rate: 0.1),
                FaultRule(path: "/services/data", drop: .afterCommit, rate: 0.15),
            ])
    }

    func allRecords() throws -> [JSONValue] {
        try store?.soups.query(QuerySpec.all(Self.soup, orderPath: "_soupEntryId", pageSize: 100_000)) ?? []
    }

    private func pickRecord(_ pick: UInt64, where include: (JSONValue) -> Bool) throws -> JSONValue? {
        let records = try allRecords().filter(include)
        guard !records.isEmpty else { return nil }
        return records[Int(pick % UInt64(records.count))]
    }

    /// The live server Accounts' ids, sorted, read without faults or request-log noise.
    private func serverIds() throws -> [String] {
        simulator.liveRecords(type: "Account").compactMap { $0["Id"]?.string }.sorted()
    }

    func serverRecord(_ id: String) -> [String: JSONValue]? {
        simulator.liveRecords(type: "Account").first { $0["Id"]?.string == id }
    }

    /// The live server Accounts' compared fields, by Id.
    private func serverRecords() -> [String: String] {
        var names: [String: String] = [:]
        for record in simulator.liveRecords(type: "Account") {
            names[record["Id"]?.string ?? ""] = compared(.object(record))
        }
        return names
    }

    static func entryId(_ record: JSONValue) throws -> Int64 {
        guard let entryId = record["_soupEntryId"]?.number?.int64Value else {
            throw InvariantFailure("a soup record has no _soupEntryId: \(record.serializedString)")
        }
        return entryId
    }

    /// When the app last changed `record` (`_soupLastModifiedDate`).
    static func lastChanged(_ record: JSONValue) -> Int64 {
        record["_soupLastModifiedDate"]?.number?.int64Value ?? 0
    }

    static func flag(_ record: JSONValue, _ name: String) -> Bool {
        record[name] == .bool(true)
    }
}

/// An invariant of the product did not hold.
struct InvariantFailure: Error {
    var message: String

    init(_ message: String) {
        self.message = message
    }
}
