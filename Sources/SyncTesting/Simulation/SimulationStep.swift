import SyncCore

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

    /// A step drawn from `random`, with the weights of a busy offline-first app.
    static func random(using random: inout SplitMix64) -> SimulationStep {
        let roll = random.next() % 100
        let pick = random.next()
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
        }
    }
}
