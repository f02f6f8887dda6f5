public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An executable built alongside the tests (by `swift build --build-tests`), run end to end.
public struct BuiltProduct: Sendable {
    /// The executable's location.
    public let url: URL

    /// The output of one run.
    public struct Output: Sendable {
        /// The exit status, or the signal number when ``wasKilled``.
        public var status: Int32
        /// Whether a signal ended the process.
        public var wasKilled: Bool
        /// Everything written to standard output.
        public var standardOutput: String
        /// Everything written to standard error.
        public var standardError: String
        /// Whether the run outlived its time limit and was killed (``wasKilled`` is then true).
        public var timedOut = false
    }

    /// Finds `name` in the build products directory that holds the running test binary.
    public init(_ name: String) throws {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // On Linux the runner sits directly in the products directory; on macOS inside a bundle.
        while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent(name).path) {
            guard directory.pathComponents.count > 1 else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: name])
            }
            directory = directory.deletingLastPathComponent()
        }
        url = directory.appendingPathComponent(name)
    }

    /// Starts the executable without waiting for it.
    ///
    /// - Parameters:
    ///   - arguments: the command-line arguments, without the executable's name.
    ///   - quietly: discard its output instead of sharing the test's.
    ///   - addedEnvironment: variables set for the child on top of the test's own environment
    ///     (a crash point, for instance).
    public func start(
        _ arguments: [String], quietly: Bool = false, addedEnvironment: [String: String] = [:]
    ) throws -> Process {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        if !addedEnvironment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(addedEnvironment) { _, added in added }
        }
        if quietly {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        return process
    }

    /// Runs the executable to completion and collects its output.
    ///
    /// Output goes through files rather than pipes, so a chatty process can never block on a
    /// full pipe while we wait for it. The wait suspends instead of blocking: tests run in
    /// parallel on a cooperative pool as wide as the machine's cores, and a test that held a
    /// thread through hundreds of child processes starved every other test of that pool. The
    /// child is spawned and reaped by its own pid (`SpawnedChild`), not through Foundation's
    /// `Process`, whose end could go unseen while another test's child lived (issue 49).
    /// - Parameters:
    ///   - arguments: the command-line arguments, without the executable's name.
    ///   - environment: the environment, or `nil` for the test's own.
    ///   - timeLimit: how long the run may take; past it the process is killed with `SIGKILL`
    ///     and the output says ``Output/timedOut``. `nil` waits for ever.
    public func run(
        _ arguments: [String], environment: [String: String]? = nil, timeLimit: Duration? = nil
    ) async throws -> Output {
        let scratch = try TemporaryDirectory("run")
        defer { scratch.remove() }
        let outputURL = scratch.appending("stdout")
        let errorURL = scratch.appending("stderr")
        let child = try SpawnedChild.spawn(
            url.path, arguments: arguments, environment: environment, standardOutput: outputURL.path,
            standardError: errorURL.path)
        let watchdog = timeLimit.map { Watchdog(pid: child.pid, timeLimit: $0) }
        let end = await child.ended(beforeReaping: { _ = watchdog?.finish() })
        let fired = watchdog?.finish() ?? false
        // The watchdog can fire just after the process exited by itself, before its end was
        // seen here: that run did not outlive its limit.
        let timedOut = fired && end.wasKilled && end.status == SIGKILL
        return Output(
            status: end.status, wasKilled: end.wasKilled,
            standardOutput: try String(contentsOf: outputURL, encoding: .utf8),
            standardError: try String(contentsOf: errorURL, encoding: .utf8), timedOut: timedOut)
    }
}

extension Process {
    /// Waits, without blocking a thread, until `condition` holds, the process has ended, or
    /// `limit` has passed, checking every 5 ms; returns whether `condition` held.
    ///
    /// How a test waits for a child to reach a point (a query sent, a file written) before it
    /// acts on it; the caller decides what an ended child or the limit means.
    @discardableResult
    public func waitWhileRunning(
        until condition: () -> Bool, limit: Duration = .seconds(120)
    ) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while !condition(), isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }

    /// Waits for a child started with a crash point to kill itself there; returns whether it
    /// ended by `SIGKILL`.
    ///
    /// The child crashes at its own Nth commit, so nothing here depends on timing; the limit only
    /// stops a child whose point never comes (a test that picked a commit past the end of its
    /// work), which is then killed and reported as not crashed instead of hanging the run.
    /// - Parameter limit: how long the child may run.
    public func crashedAtItsPoint(limit: Duration = .seconds(600)) async throws -> Bool {
        try await waitWhileRunning(until: { false }, limit: limit)
        if isRunning {
            kill(processIdentifier, SIGKILL)
            await exited()
            return false
        }
        await exited()
        return terminationReason == .uncaughtSignal && terminationStatus == SIGKILL
    }

    /// Waits for the process to exit without blocking a thread of the cooperative pool, which
    /// may be serving an in-process simulator the process talks to.
    public func exited() async {
        while isRunning {
            try? await Task.sleep(for: .milliseconds(5))
        }
        // `isRunning` turns false before Foundation has recorded how the process ended; reading
        // `terminationReason` in that window traps. This returns once it is recorded.
        waitUntilExit()
    }
}

/// Kills a process that outlives its time limit.
private final class Watchdog: Sendable {
    /// `nil` once the process ended; then it is never signalled (its pid may be reused).
    private let state: Mutex<(pid: pid_t?, fired: Bool)>

    init(pid: pid_t, timeLimit: Duration) {
        state = Mutex((pid, false))
        let milliseconds = Int(
            timeLimit.components.seconds * 1_000 + timeLimit.components.attoseconds / 1_000_000_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { [self] in
            state.withLock { state in
                guard let pid = state.pid else { return }
                state.fired = true
                kill(pid, SIGKILL)
            }
        }
    }

    /// Marks the process as ended; returns whether the watchdog killed it.
    func finish() -> Bool {
        state.withLock { state in
            state.pid = nil
            return state.fired
        }
    }
}
