import Determinism
import LosslessJSON
import SalesforceAPI

/// Everything the simulator holds, guarded by one lock in ``SalesforceSimulator``.
struct SimulatorState: Sendable {
    /// An open query cursor: the whole result, snapshotted when the query ran (decision 0101).
    struct QueryCursor: Sendable {
        var rows: [JSONValue]
        var pageSize: Int
        var openedAt: WallTime
    }

    /// Open cursors kept; opening more evicts the oldest, as pre-API-56 orgs did at 10.
    static let cursorCountMax = 200
    /// How long a cursor stays valid, as on current orgs.
    static let cursorLifetime: Duration = .seconds(2 * 24 * 3600)
    /// Request-log entries kept, oldest dropped first.
    static let requestLogCountMax = 10_000
    /// The daily API request allowance reported in `Sforce-Limit-Info`.
    static let dailyAPIRequestsMax = 100_000

    let configuration: SalesforceSimulator.Configuration
    let initialStore: OrgStore
    var store: OrgStore
    /// Milliseconds added to the clock by `clock/advance`.
    var clockOffsetMilliseconds: Int64 = 0
    /// The logical clock of deterministic mode.
    var logicalMilliseconds: Int64
    var accessTokens: Set<String>
    var refreshTokenRevoked = false
    var cursors: [String: QueryCursor] = [:]
    var cursorOrder: [String] = []
    var cursorCounter: UInt64 = 0
    /// Open priming-records pages after the first, by relay token, oldest first.
    var relayCursors: [String: RelayCursor] = [:]
    var relayOrder: [String] = []
    var faultPlan: FaultPlan
    var faultRandom: SplitMix64
    var faultRuleHits: [Int: Int] = [:]
    var tokenRandom: SplitMix64
    var requestLog: [JSONValue] = []
    var apiUsage = 0
    /// The base URL clients reach the simulator at, returned as `instance_url`.
    var instanceURL = "http://127.0.0.1"

    init(configuration: SalesforceSimulator.Configuration, store: OrgStore, start: WallTime) {
        self.configuration = configuration
        initialStore = store
        self.store = store
        logicalMilliseconds = start.millisecondsSinceEpoch
        faultPlan = configuration.faultPlan
        faultRandom = SplitMix64(seed: configuration.faultPlan.seed ?? configuration.seed)
        tokenRandom = SplitMix64(seed: configuration.seed ^ 0x5EED_70C3)
        accessTokens = []
        accessTokens.insert(configuration.accessToken ?? mintToken())
    }

    /// Puts the org back as it started: data, tokens, clock, cursors, faults and the log.
    mutating func reset() {
        let instanceURL = self.instanceURL
        // A fresh state re-seeds the token generator, so the initial token comes back too.
        self = SimulatorState(configuration: configuration, store: initialStore, start: configuration.startTime)
        self.instanceURL = instanceURL
    }

    /// The token a fresh client should use.
    var currentToken: String? { accessTokens.sorted().first }

    /// Mints an opaque access token in Salesforce's `00D…!…` shape.
    mutating func mintToken() -> String {
        let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        var token = "00D000000000001AAA!"
        for _ in 0..<40 { token.append(digits[Int(tokenRandom.next() % 62)]) }
        return token
    }

    /// The current time, whole seconds; reading does not advance it.
    func now() -> WallTime {
        let base: Int64
        switch configuration.clock {
        case .logical: base = logicalMilliseconds
        case .wall(let clock): base = clock.now().millisecondsSinceEpoch
        }
        return WallTime(millisecondsSinceEpoch: SOQLParser.floorToSecond(base + clockOffsetMilliseconds))
    }

    /// The time stamped on a write; in logical mode each write advances the clock one second,
    /// so every write has its own `SystemModstamp`.
    mutating func writeTime() -> WallTime {
        if case .logical = configuration.clock { logicalMilliseconds += 1000 }
        return now()
    }

    /// Stores a cursor and returns its locator, evicting the oldest beyond the limit.
    mutating func openCursor(rows: [JSONValue], pageSize: Int) -> String {
        cursorCounter += 1
        let locator = SalesforceID(keyPrefix: "01g", counter: cursorCounter).rawValue
        cursors[locator] = QueryCursor(rows: rows, pageSize: pageSize, openedAt: now())
        cursorOrder.append(locator)
        while cursorOrder.count > Self.cursorCountMax { cursors[cursorOrder.removeFirst()] = nil }
        return locator
    }

    mutating func appendLog(_ entry: JSONValue) {
        requestLog.append(entry)
        if requestLog.count > Self.requestLogCountMax {
            requestLog.removeFirst(requestLog.count - Self.requestLogCountMax)
        }
    }
}
