import Determinism
import EventJournal
import Foundation
import LMDBStore
import MobileSync
import SalesforceSimulator
import SyncTesting
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a crash round ends the child.
enum CrashMoment: CustomStringConvertible {
    /// Killed by the server right after it committed upload request `request` (from 1), before
    /// its answer left: the outcome can never be journaled.
    case serverCommitted(request: Int)
    /// The child kills itself at a commit of its journal: an intent, an outcome or a state.
    case journalCommit(CrashPoint)

    var description: String {
        switch self {
        case .serverCommitted(let request): "when the server committed request \(request)"
        case .journalCommit(let point): "at \(point)"
        }
    }

    /// `count` seeded moments: the first third at the server's commit of one of the run's
    /// `requests` uploads, the rest at one of the first `journalCommits` commits of the child's
    /// journal, which every run makes (each upload journals its intent and its outcome).
    static func seeded(_ count: Int, requests: Int, journalCommits: Int, seed: UInt64) -> [CrashMoment] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { round in
            guard round >= count / 3 else { return .serverCommitted(request: round % requests + 1) }
            return .journalCommit(
                CrashPoint(
                    folderName: "journal", commit: Int.random(in: 1...journalCommits, using: &random),
                    moment: Bool.random(using: &random) ? .afterCommit : .beforeCommit))
        }
    }
}

/// The simulator serving the crash tests on loopback, and the kill of an `msync` child at a
/// moment of its uploads. The simulator runs in this process, so a response observer can kill
/// the child right after the server committed a request and before its answer left (the
/// outcome can then never be journaled), or a few milliseconds later.
struct CrashOrg {
    let simulator: SalesforceSimulator
    let server: SimulatorServer

    static func start() async throws -> CrashOrg {
        let simulator = try SalesforceSimulator(
            configuration: SalesforceSimulator.Configuration(accessToken: "crash-token"), logger: .discarding)
        return CrashOrg(simulator: simulator, server: try await SimulatorServer.start(simulator, logger: .discarding))
    }

    var connectionArguments: [String] {
        ["--instance-url", server.url.absoluteString, "--access-token", simulator.accessToken]
    }

    func stop() async {
        await server.stop()
    }

    /// Runs `msync resync up` on `store` in a child, ends it at `moment` (counting the requests
    /// `isUpload` selects), lets `afterKill` look at the store, then runs it again to the end.
    /// - Returns: whether the child was killed at `moment` (and did not end on its own).
    func killAndResume(
        _ msync: BuiltProduct, store: URL, at moment: CrashMoment, afterKill: (URL) throws -> Void = { _ in },
        isUpload: @escaping @Sendable (_ method: String, _ path: String) -> Bool
    ) async throws -> Bool {
        let arguments = ["resync", "up", "--store", store.path] + connectionArguments
        let landed: Bool
        switch moment {
        case .serverCommitted(let request):
            let child = try msync.start(arguments, quietly: true)
            let uploads = Atomic(0)
            let pid = child.processIdentifier
            simulator.setResponseObserver { observed, _ in
                guard isUpload(observed.method, observed.path) else { return }
                guard uploads.add(1, ordering: .sequentiallyConsistent).newValue == request else { return }
                kill(pid, SIGKILL)
            }
            await child.exited()
            simulator.setResponseObserver(nil)
            landed = child.terminationReason == .uncaughtSignal
        case .journalCommit(let point):
            let child = try msync.start(arguments, quietly: true, addedEnvironment: point.environment)
            landed = try await child.crashedAtItsPoint()
        }
        try afterKill(store)
        let resumed = try msync.start(arguments, quietly: true)
        await resumed.exited()
        #expect(resumed.terminationStatus == 0, "the resumed sync up exited with \(resumed.terminationStatus)")
        return landed
    }
}
