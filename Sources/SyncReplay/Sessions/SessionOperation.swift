public import SalesforceSimulator

/// One step of a recorded session: what the app did locally, what it asked the sync engine to
/// do, or what happened on the server meanwhile.
///
/// Operations are data so that a session can be replayed from its files alone: a
/// ``SessionRunner`` performs them in order against whatever transport it is given — the
/// simulator while recording, the recorded answers while replaying. Server-side operations
/// (another client's writes, faults, token expiry) are requests to the simulator's control
/// plane under `/__simulator/`, so they are recorded and checked like any other request.
///
/// Field values are strings: every scenario needs only text fields, and a string survives the
/// JSON round trip of `operations.json` byte for byte.
public enum SessionOperation: Codable, Hashable, Sendable {
    /// Registers a soup; each index is written `path:type` as `msync register-soup` takes it.
    case registerSoup(soup: String, indexes: [String])
    /// Creates a record locally (dirty, with a local id), of the sObject `type`.
    case createLocally(soup: String, type: String, fields: [String: String])
    /// Changes fields of the first record (lowest `_soupEntryId`) whose `field` equals `value`.
    case updateLocally(soup: String, field: String, value: String, changes: [String: String])
    /// Creates a record locally (dirty, with a local id) whose `linkField` holds the `Id` of the
    /// first record of `parentSoup` whose `parentField` is `parentValue`: a child created under
    /// a parent that may itself only have a local id yet.
    case createChildLocally(
        soup: String, type: String, fields: [String: String], linkField: String, parentSoup: String,
        parentField: String, parentValue: String)
    /// Deletes locally the first record whose `field` equals `value`.
    case deleteLocally(soup: String, field: String, value: String)
    /// Another client creates (no `id`) or updates a record on the server; with `modifiedAt` (a
    /// Salesforce date-time) in a transaction that started then, which dates the record.
    case writeOnServer(type: String, id: String?, fields: [String: String], modifiedAt: String? = nil)
    /// Another client deletes a record on the server.
    case deleteOnServer(type: String, id: String)
    /// Installs a simulator fault plan; `nil` removes faults.
    case setFaults(FaultPlan?)
    /// Every access token stops working, so the next request refreshes the session.
    case expireTokens
    /// Creates a SOQL sync down named `name` and runs it. With `stopAfterFirstPage` the manager
    /// is stopped as soon as the first page is stored, so the sync ends STOPPED.
    /// `reSyncOverlapSeconds` is the target's (0 when absent).
    case syncDown(
        name: String, soup: String, query: String, batchSize: Int?, mergeMode: String, stopAfterFirstPage: Bool,
        reSyncOverlapSeconds: Int? = nil)
    /// Creates a sync down named `name` to any target, given as its Mobile SDK JSON in the
    /// form the engine writes it (keys in byte order, no spaces), and runs it.
    case syncDownTarget(name: String, soup: String, target: String, mergeMode: String)
    /// Runs the sync named `name` again (incremental for a sync down).
    case reSync(name: String)
    /// Creates a sync up named `name` to the built-in target `target` and runs it.
    case syncUp(
        name: String, soup: String, target: SessionSyncUpTarget, mergeMode: String, fieldlist: [String],
        externalIdField: String?)
    /// Creates a sync up named `name` to any target, given as its Mobile SDK JSON in the form
    /// the engine writes it, and runs it.
    case syncUpTarget(name: String, soup: String, target: String, mergeMode: String, fieldlist: [String]?)
    /// Removes the records of the sync down `name` that the server no longer has.
    case cleanGhosts(name: String)
    /// Restarts a stopped manager, resuming its stopped syncs.
    case restart
    /// Simulates a crash: the manager and the store are dropped and the store reopened.
    case reopenStore
    /// Resolves the open MERGE_FIELDS conflict of the first record whose `field` equals
    /// `value`, every field (or the whole record) taking the side `take`: `local` or `server`.
    case resolveConflict(soup: String, field: String, value: String, take: String)
}
