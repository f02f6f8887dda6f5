public import Determinism
public import Logging
import Synchronization

/// A Salesforce-compatible REST server in memory: an org, SOQL/SOSL, paging, OAuth and faults.
///
/// Use it in-process through ``handle(_:)``, or serve it over HTTP with ``SimulatorServer``:
///
/// ```swift
/// let simulator = try SalesforceSimulator(configuration: .init(data: try .demo()), logger: logger)
/// let server = try await SimulatorServer.start(simulator, logger: logger)
/// // … point a SalesforceClient at server.url with simulator.accessToken …
/// await server.stop()
/// ```
///
/// Every method is safe to call from any task; requests are executed one at a time under a lock.
public final class SalesforceSimulator: Sendable {
    /// How the simulator tells time.
    public enum ClockMode: Sendable {
        /// A logical clock starting at a fixed time that advances one second on every write, so
        /// runs are reproducible.
        case logical(start: WallTime)
        /// An injected wall clock (a `ManualWallClock` in tests, the system clock live).
        case wall(any WallClock)
    }

    /// How to start the simulator.
    public struct Configuration: Sendable {
        /// The org's initial contents.
        public var data: SimulatorData
        /// The access token clients start with; a seeded token when `nil`.
        public var accessToken: String?
        /// The refresh token the token endpoint accepts.
        public var refreshToken: String
        /// Seeds tokens and faults.
        public var seed: UInt64
        /// How time is told.
        public var clock: ClockMode
        /// Faults injected from the start.
        public var faultPlan: FaultPlan

        /// Where the logical clock starts by default: 2024-01-01T00:00:00Z.
        public static let logicalStartDefault = WallTime(millisecondsSinceEpoch: 1_704_067_200_000)

        /// Creates a configuration.
        public init(
            data: SimulatorData = .empty, accessToken: String? = nil, refreshToken: String = "simulator-refresh-token",
            seed: UInt64 = 0, clock: ClockMode = .logical(start: logicalStartDefault), faultPlan: FaultPlan = .none
        ) {
            self.data = data
            self.accessToken = accessToken
            self.refreshToken = refreshToken
            self.seed = seed
            self.clock = clock
            self.faultPlan = faultPlan
        }

        var startTime: WallTime {
            switch clock {
            case .logical(let start): return start
            case .wall(let clock): return clock.now()
            }
        }
    }

    /// Called with every request after it has executed and before its answer leaves.
    public typealias ResponseObserver = @Sendable (SimulatorRequest, SimulatorResponse) -> Void

    let state: Mutex<SimulatorState>
    let sleepClock: any Clock<Duration>
    let logger: Logger
    let observer = Mutex<ResponseObserver?>(nil)

    /// Creates a simulator.
    ///
    /// - Parameters:
    ///   - configuration: Data, tokens, seed, clock and faults.
    ///   - sleepClock: The clock injected latency sleeps on.
    ///   - logger: Where the simulator logs.
    /// - Throws: ``SimulatorError/Code/invalidData`` when the data does not fit the schema.
    public init(configuration: Configuration, sleepClock: any Clock<Duration> = ContinuousClock(), logger: Logger)
        throws
    {
        let store = try OrgStore.load(configuration.data, now: configuration.startTime)
        state = Mutex(SimulatorState(configuration: configuration, store: store, start: configuration.startTime))
        self.sleepClock = sleepClock
        self.logger = logger
    }

    /// A valid access token.
    public var accessToken: String {
        state.withLock { $0.currentToken ?? "" }
    }

    /// The simulator's current time.
    public var now: WallTime {
        state.withLock { $0.now() }
    }

    /// Sets the base URL reported as `instance_url` (``SimulatorServer`` does this on start).
    public func setInstanceURL(_ url: String) {
        state.withLock { $0.instanceURL = url }
    }

    /// Observes every request between its execution and its answer: the moment a crash test
    /// kills a client to leave a committed write unanswered. `nil` removes the observer.
    public func setResponseObserver(_ observer: ResponseObserver?) {
        self.observer.withLock { $0 = observer }
    }

    /// Answers one request. Never throws and never traps on input: every failure is a
    /// Salesforce error response.
    public func handle(_ request: SimulatorRequest) async -> SimulatorResponse {
        let (response, delay) = state.withLock { $0.respond(to: request) }
        observer.withLock { $0 }?(request, response)
        logger.debug(
            "Simulator request",
            metadata: [
                "simulator.method": "\(request.method)", "simulator.path": "\(request.path)",
                "simulator.status": "\(response.status)",
            ])
        if delay > .zero {
            do {
                try await sleepClock.sleep(for: delay)
            } catch {
                logger.debug("Injected latency cut short", metadata: ["simulator.error": "\(error)"])
            }
        }
        return response
    }
}
