import Determinism
import EventJournal
public import Foundation
import LMDBStore
import Logging
import LosslessJSON
public import MobileSync
public import SalesforceAPI
import SalesforceSimulator
import Soups

/// Performs a session's operations against a store and a transport: the simulator while
/// recording, the recorded answers while replaying.
///
/// Everything else is fixed so that two runs over the same answers append the same journal:
/// the store's clock is a `ManualWallClock` from the script, local ids come from one
/// `IncrementingIDGenerator` (kept across a reopen, as a device keeps its id counter), the
/// client's backoff sleeps on an `ImmediateClock` with seeded jitter, and syncs run one at a
/// time.
public final class SessionRunner {
    /// Where the client believes the server is; never dialled, requests go to the transport.
    static let instanceURL = URL(string: "http://session.invalid") ?? URL(fileURLWithPath: "/")
    /// The tokens the client starts with. Recordings redact tokens, so these never reach a file.
    static let accessToken = "session-access-token"
    /// See ``accessToken``.
    static let refreshToken = "session-refresh-token"
    /// The client's jitter seed: fixed, since backoff sleeps are immediate and never recorded.
    static let jitterSeed: UInt64 = 7

    private let script: SessionScript
    private let storeDirectory: URL
    private let transport: any HTTPTransport
    private let clock: ManualWallClock
    private let ids = IncrementingIDGenerator()
    private let client: SalesforceClient
    private var store: SyncStore?
    private var manager: SyncManager?

    /// Prepares a run of `script` with a new store in `storeDirectory`, talking through `transport`.
    public init(script: SessionScript, storeDirectory: URL, transport: any HTTPTransport) {
        self.script = script
        self.storeDirectory = storeDirectory
        self.transport = transport
        clock = ManualWallClock(
            WallTime(millisecondsSinceEpoch: script.clockStartMilliseconds),
            tick: .milliseconds(script.clockTickMilliseconds))
        client = SalesforceClient(
            credentials: SalesforceCredentials(
                instanceURL: Self.instanceURL, accessToken: Self.accessToken, refreshToken: Self.refreshToken,
                clientID: "recorded-session"),
            transport: transport, clock: ImmediateClock(), randomSeed: Self.jitterSeed, logger: .discarding)
    }

    /// Performs every operation in order and returns the store.
    ///
    /// - Parameter check: called after each operation with its index, before an error the
    ///   operation threw is reported; a replay throws its divergence from here, so the first
    ///   difference is what the caller sees.
    /// - Throws: ``SessionReplayError/Code/operationFailed`` naming the operation, or what
    ///   `check` throws.
    public func run(check: (Int) throws -> Void = { _ in }) async throws -> SyncStore {
        try reopen()
        for (index, operation) in script.operations.enumerated() {
            var failure: (any Error)?
            do {
                try await perform(operation)
            } catch {
                failure = error
            }
            try check(index)
            if let failure = failure as? SessionReplayError { throw failure }
            if let failure {
                throw SessionReplayError(
                    .operationFailed, "operation \(index + 1) (\(operation)) failed: \(failure)", cause: failure)
            }
        }
        guard let store else { throw SessionReplayError(.operationFailed, "the session ended without a store") }
        return store
    }

    // MARK: - Operations

    private func perform(_ operation: SessionOperation) async throws {
        switch operation {
        case .registerSoup(let soup, let indexes):
            try openStore().soups.registerSoup(soup, indexSpecs: try indexes.map(Self.indexSpec))
        case .createLocally(let soup, let type, let fields):
            var record = fields.mapValues(JSONValue.string)
            record["attributes"] = .object(["type": .string(type)])
            _ = try openStore().soups.createLocally(soup, .object(record))
        case .updateLocally(let soup, let field, let value, let changes):
            let entryId = try entryId(soup, field, value)
            _ = try openStore().soups.updateLocally(
                soup, entryId: entryId, changes: changes.mapValues(JSONValue.string))
        case .createChildLocally(let soup, let type, let fields, let linkField, let parentSoup, let field, let value):
            let parentEntryId = try entryId(parentSoup, field, value)
            guard let parent = try openStore().soups.retrieve(parentSoup, ids: [parentEntryId]).first else {
                throw SessionReplayError(.operationFailed, "no record of soup \(parentSoup) has \(field) = \(value)")
            }
            var record = fields.mapValues(JSONValue.string)
            record["attributes"] = .object(["type": .string(type)])
            record[linkField] = parent["Id"] ?? .null
            _ = try openStore().soups.createLocally(soup, .object(record))
        case .deleteLocally(let soup, let field, let value):
            _ = try openStore().soups.deleteLocally(soup, entryId: try entryId(soup, field, value))
        case .writeOnServer, .deleteOnServer, .setFaults, .expireTokens:
            try await control(operation)
        case .syncDown(
            let name, let soup, let query, let batchSize, let mergeMode, let stopAfterFirstPage, let overlap):
            let manager = try openManager()
            let target = try Self.soqlTarget(query, batchSize: batchSize, reSyncOverlapSeconds: overlap ?? 0)
            try await manager.syncDown(
                target: target, options: SyncOptions(mergeMode: try Self.mergeMode(mergeMode)), soupName: soup,
                name: name,
                onUpdate: { state in
                    // Stopping once page 0 is stored leaves a STOPPED sync with a watermark to resume from.
                    if stopAfterFirstPage, state.status == .running, state.progress > 0 { manager.stop() }
                })
        case .syncDownTarget(let name, let soup, let text, let mergeMode):
            let target = try SyncDownTargetDescriptor(json: try Self.canonicalTarget(text))
            try await openManager().syncDown(
                target: target, options: SyncOptions(mergeMode: try Self.mergeMode(mergeMode)), soupName: soup,
                name: name)
        case .syncUpTarget(let name, let soup, let text, let mergeMode, let fieldlist):
            let target = try SyncUpTargetDescriptor(json: try Self.canonicalTarget(text))
            try await openManager().syncUp(
                target: target, options: SyncOptions(mergeMode: try Self.mergeMode(mergeMode), fieldlist: fieldlist),
                soupName: soup, name: name)
        case .reSync(let name):
            try await openManager().reSync(name: name)
        case .syncUp(let name, let soup, let target, let mergeMode, let fieldlist, let externalIdField):
            var descriptor = SyncUpTargetDescriptor(Self.targetKind(target))
            descriptor.externalIdFieldName = externalIdField
            try await openManager().syncUp(
                target: descriptor,
                options: SyncOptions(mergeMode: try Self.mergeMode(mergeMode), fieldlist: fieldlist),
                soupName: soup, name: name)
        case .cleanGhosts(let name):
            _ = try await openManager().cleanResyncGhosts(name: name)
        case .restart:
            _ = try await openManager().restart(restartStoppedSyncs: true)
        case .reopenStore:
            try reopen()
        case .resolveConflict(let soup, let field, let value, let take):
            guard let side = ConflictResolution.Side(rawValue: take) else {
                throw SessionReplayError(.malformedFile, "conflict side \"\(take)\" is not local or server")
            }
            try openStore().resolveConflict(soup: soup, entryId: try entryId(soup, field, value), .take(side))
        }
    }

    /// Sends a server-side operation to the simulator's control plane through the transport, so
    /// that it is recorded, and checked on replay, in its place among the engine's requests.
    private func control(_ operation: SessionOperation) async throws {
        let request: (method: String, path: String, body: Data?)
        switch operation {
        case .writeOnServer(let type, let id, let fields, let modifiedAt):
            var body: [String: JSONValue] = [
                "type": .string(type), "fields": .object(fields.mapValues(JSONValue.string)),
            ]
            if let id { body["id"] = .string(id) }
            if let modifiedAt { body["modifiedAt"] = .string(modifiedAt) }
            request = ("POST", "/__simulator/records", Data(JSONValue.object(body).serialized()))
        case .deleteOnServer(let type, let id):
            request = ("DELETE", "/__simulator/records/\(type)/\(id)", nil)
        case .setFaults(let plan?):
            request = ("PUT", "/__simulator/faults", try SessionFiles.compactEncoder().encode(plan))
        case .setFaults(nil):
            request = ("DELETE", "/__simulator/faults", nil)
        default:
            request = ("POST", "/__simulator/tokens/expire", nil)
        }
        let response = try await transport.send(
            TransportRequest(
                method: request.method, url: Self.instanceURL.appendingPathComponent(request.path),
                headers: request.body == nil ? [:] : ["Content-Type": "application/json"], body: request.body))
        guard (200..<300).contains(response.status) else {
            throw SessionReplayError(
                .operationFailed,
                "the simulator refused \(request.method) \(request.path): HTTP \(response.status) "
                    + String(decoding: response.body, as: UTF8.self))
        }
    }

    // MARK: - Helpers

    /// Drops the manager and the store and opens them again, as an app does after a crash.
    private func reopen() throws {
        manager = nil
        store = nil
        var options = JournalOptions()
        // Durability across power loss is not what a session tests; skipping fsync keeps replays fast.
        options.environment.flushesOnCommit = false
        let store = try SyncStore(
            directory: storeDirectory, clock: clock, idGenerator: ids, options: options, logger: .discarding)
        self.store = store
        manager = try SyncManager(store: store, client: client, clock: clock, logger: .discarding)
    }

    private func openStore() throws -> SyncStore {
        guard let store else { throw SessionReplayError(.operationFailed, "the store is not open") }
        return store
    }

    private func openManager() throws -> SyncManager {
        guard let manager else { throw SessionReplayError(.operationFailed, "the sync manager is not open") }
        return manager
    }

    /// The `_soupEntryId` of the record of `soup` whose indexed `field` is `value`.
    private func entryId(_ soup: String, _ field: String, _ value: String) throws -> Int64 {
        guard let entryId = try openStore().soups.lookupSoupEntryId(soup, path: field, value: .string(value)) else {
            throw SessionReplayError(.operationFailed, "no record of soup \(soup) has \(field) = \(value)")
        }
        return entryId
    }

    /// The SOQL target of `query`, which must already be in the form the engine normalizes
    /// queries to (``SessionCatalog/normalizedQuery(_:)``).
    ///
    /// The engine rewrites a query (keywords lower-cased, the id and date fields added, ordered
    /// by date), so a query that is not normalized could change — in letter case, say — without
    /// changing any request or entry, and a changed `operations.json` would replay as if intact.
    private static func soqlTarget(
        _ query: String, batchSize: Int?, reSyncOverlapSeconds: Int
    ) throws -> SyncDownTargetDescriptor {
        let target = try SyncDownTargetDescriptor(
            .soql(query: query, maxBatchSize: batchSize ?? SyncDownTargetDescriptor.soqlBatchSizeDefault),
            reSyncOverlapSeconds: reSyncOverlapSeconds)
        guard case .soql(let normalized, _) = target.kind, normalized == query else {
            throw SessionReplayError(
                .malformedFile,
                "the query \"\(query)\" is not in normalized form; it must be written as the engine sends it")
        }
        return target
    }

    /// The target JSON of `text`, which must be written as the engine writes targets (keys in
    /// byte order, no spaces), so that an edit the parser would ignore is refused.
    private static func canonicalTarget(_ text: String) throws -> JSONValue {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: Array(text.utf8))
        } catch {
            throw SessionReplayError(.malformedFile, "the target \(text) is not JSON: \(error)")
        }
        guard json.serializedString == text else {
            throw SessionReplayError(.malformedFile, "the target \(text) is not in canonical form")
        }
        return json
    }

    private static func indexSpec(_ text: String) throws -> IndexSpec {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, let type = IndexType(rawValue: parts[1]) else {
            throw SessionReplayError(.malformedFile, "index \"\(text)\" is not PATH:TYPE")
        }
        return IndexSpec(path: parts[0], type: type)
    }

    private static func mergeMode(_ text: String) throws -> MergeMode {
        guard let mode = MergeMode(rawValue: text) else {
            throw SessionReplayError(
                .malformedFile, "merge mode \"\(text)\" is not OVERWRITE, LEAVE_IF_CHANGED or MERGE_FIELDS")
        }
        return mode
    }

    private static func targetKind(_ target: SessionSyncUpTarget) -> SyncUpTargetDescriptor.Kind {
        switch target {
        case .singleRecord: .singleRecord
        case .batch: .batch
        case .collection: .collection
        }
    }
}
