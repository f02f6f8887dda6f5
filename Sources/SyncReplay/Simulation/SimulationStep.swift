import Determinism

/// One step of a seeded simulation. Steps that pick a record carry the random number that picks
/// it, so a step list replays exactly and can be shortened by dropping steps.
public enum SimulationStep: Hashable, Sendable, CustomStringConvertible {
    /// The app creates a record offline.
    case localCreate
    /// The app edits a record offline.
    case localUpdate(pick: UInt64)
    /// The app deletes a record offline.
    case localDelete(pick: UInt64)
    /// Another client creates an Account on the server.
    case serverCreate
    /// Another client edits an Account on the server.
    case serverUpdate(pick: UInt64)
    /// Another client edits an Account in a transaction that started up to the sync down's
    /// overlap ago, in whole seconds (0: in the current second, the second of the newest record
    /// the last sync down may have fetched). Salesforce dates the record with the transaction's
    /// start, so the edit can share the watermark's second or come before it.
    case serverLateUpdate(pick: UInt64)
    /// Another client deletes an Account on the server.
    case serverDelete(pick: UInt64)
    /// The app syncs down (reSync of the sync down, LEAVE_IF_CHANGED).
    case syncDown
    /// The app syncs up (OVERWRITE, upserts by external id).
    case syncUp
    /// The app cleans the sync down's ghosts.
    case cleanGhosts
    /// The network starts (or stops) failing: 5xx answers and connections dropped before and
    /// after the server commits.
    case faults(on: Bool)
    /// The server expires every access token.
    case expireToken
    /// The app's process is killed and starts again: nothing is closed or synced, the store
    /// and the sync manager are reopened.
    case crash
    /// The machine loses power: what the projections wrote without a sync is damaged (`damage`
    /// picks how), the machine restarts (a new boot identity) and the app reopens the store.
    case powerLoss(damage: UInt64)
    /// The app creates an Account with a Contact offline, in the parent/children soups.
    case treeCreate
    /// The app creates a Contact offline under an Account of the parent/children soups.
    case childCreate(pick: UInt64)
    /// The app edits a Contact offline.
    case childUpdate(pick: UInt64)
    /// The app deletes a Contact offline.
    case childDelete(pick: UInt64)
    /// The app edits an Account of the parent/children soups offline.
    case treeParentUpdate(pick: UInt64)
    /// The app deletes an Account of the parent/children soups offline, and with it its Contacts
    /// (master-detail).
    case treeParentDelete(pick: UInt64)
    /// Another client creates a Contact under an Account on the server.
    case serverChildCreate(pick: UInt64)
    /// Another client edits a Contact on the server.
    case serverChildUpdate(pick: UInt64)
    /// Another client deletes a Contact on the server.
    case serverChildDelete(pick: UInt64)
    /// The app syncs parents and children down (reSync, LEAVE_IF_CHANGED).
    case treeDown
    /// The app syncs parents and children up (OVERWRITE, upserts by external id).
    case treeUp
    /// The app cleans the parent/children sync's ghosts.
    case cleanTreeGhosts
    /// The app compacts its journal to its newest `keep` entries (archiving what it removes).
    /// Not drawn at random: the step list has one every ``SyncSimulation/compactionEvery``
    /// steps, so adding it left every seed's random steps as they were.
    case compact(keep: UInt64)

    /// A step drawn from `random`, with the weights of a busy offline-first app.
    static func random(using random: inout SplitMix64) -> SimulationStep {
        let roll = random.next() % 130
        let pick = random.next()
        if roll >= 100 { return tree(roll: roll, pick: pick) }
        switch roll {
        case 0..<14: return .localCreate
        case 14..<30: return .localUpdate(pick: pick)
        case 30..<37: return .localDelete(pick: pick)
        case 37..<43: return .serverCreate
        case 43..<47: return .serverUpdate(pick: pick)
        case 47..<52: return .serverLateUpdate(pick: pick)
        case 52..<56: return .serverDelete(pick: pick)
        case 56..<68: return .syncDown
        case 68..<82: return .syncUp
        case 82..<86: return .cleanGhosts
        case 86..<92: return .faults(on: pick % 2 == 0)
        case 92..<95: return .expireToken
        case 95..<98: return .crash
        default: return .powerLoss(damage: pick)
        }
    }

    /// A parent/children step: rolls 100 to 129, about a quarter of the steps.
    private static func tree(roll: UInt64, pick: UInt64) -> SimulationStep {
        switch roll {
        case 100..<104: .treeCreate
        case 104..<108: .childCreate(pick: pick)
        case 108..<112: .childUpdate(pick: pick)
        case 112..<114: .childDelete(pick: pick)
        case 114..<116: .treeParentUpdate(pick: pick)
        case 116..<117: .treeParentDelete(pick: pick)
        case 117..<119: .serverChildCreate(pick: pick)
        case 119..<121: .serverChildUpdate(pick: pick)
        case 121..<122: .serverChildDelete(pick: pick)
        case 122..<125: .treeDown
        case 125..<129: .treeUp
        default: .cleanTreeGhosts
        }
    }

    public var description: String {
        switch self {
        case .localCreate: "localCreate"
        case .localUpdate(let pick): "localUpdate(\(pick % 1000))"
        case .localDelete(let pick): "localDelete(\(pick % 1000))"
        case .serverCreate: "serverCreate"
        case .serverUpdate(let pick): "serverUpdate(\(pick % 1000))"
        case .serverLateUpdate(let pick): "serverLateUpdate(\(pick % 1000))"
        case .serverDelete(let pick): "serverDelete(\(pick % 1000))"
        case .syncDown: "syncDown"
        case .syncUp: "syncUp"
        case .cleanGhosts: "cleanGhosts"
        case .faults(let on): on ? "faultsOn" : "faultsOff"
        case .expireToken: "expireToken"
        case .crash: "crash"
        case .powerLoss(let damage): "powerLoss(\(damage % 4))"
        case .treeCreate: "treeCreate"
        case .childCreate(let pick): "childCreate(\(pick % 1000))"
        case .childUpdate(let pick): "childUpdate(\(pick % 1000))"
        case .childDelete(let pick): "childDelete(\(pick % 1000))"
        case .treeParentUpdate(let pick): "treeParentUpdate(\(pick % 1000))"
        case .treeParentDelete(let pick): "treeParentDelete(\(pick % 1000))"
        case .serverChildCreate(let pick): "serverChildCreate(\(pick % 1000))"
        case .serverChildUpdate(let pick): "serverChildUpdate(\(pick % 1000))"
        case .serverChildDelete(let pick): "serverChildDelete(\(pick % 1000))"
        case .treeDown: "treeDown"
        case .treeUp: "treeUp"
        case .cleanTreeGhosts: "cleanTreeGhosts"
        case .compact(let keep): "compact(\(keep))"
        }
    }
}
