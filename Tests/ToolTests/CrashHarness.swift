import Determinism
import EventJournal
import Foundation
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

/// When a crash round kills the child.
struct KillMoment: CustomStringConvertible {
    /// The upload request (1-based) whose commit triggers the kill.
    var request: Int
    /// How long after that commit; zero kills before the answer is written.
    var delayMicroseconds: Int

    var description: String { "after request \(request) + \(delayMicroseconds) µs" }

    /// `count` seeded moments over the run's `requests` uploads; the first third exactly at a
    /// commit, the rest spread up to 30 ms after one.
    static func seeded(_ count: Int, requests: Int, seed: UInt64) -> [KillMoment] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { round in
            KillMoment(
                request: round % requests + 1,
                delayMicroseconds: round < count / 3 ? 0 : Int.random(in: 1...30_000, using: &random))
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

    /// Runs `msync resync up` on `store` in a child, kills it at `moment` (counting the requests
    /// `isUpload` selects), lets `afterKill` look at the store, then runs it again to the end.
    /// - Returns: whether the kill landed (the child was still running).
    func killAndResume(
        _ msync: BuiltProduct, store: URL, at moment: KillMoment, afterKill: (URL) throws -> Void = { _ in },
        isUpload: @escaping @Sendable (_ method: String, _ path: String) -> Bool
    ) async throws -> Bool {
        let arguments = ["resync", "up", "--store", store.path] + connectionArguments
        let child = try msync.start(arguments, quietly: true)
        let uploads = Atomic(0)
        let pid = child.processIdentifier
        simulator.setResponseObserver { request, _ in
            guard isUpload(request.method, request.path) else { return }
            guard uploads.add(1, ordering: .sequentiallyConsistent).newValue == moment.request else { return }
            if moment.delayMicroseconds == 0 {
                kill(pid, SIGKILL)
            } else {
                DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(moment.delayMicroseconds)) {
                    kill(pid, SIGKILL)
                }
            }
        }
        await child.exited()
        simulator.setResponseObserver(nil)
        let landed = child.terminationReason == .uncaughtSignal
        try afterKill(store)
        let resumed = try msync.start(arguments, quietly: true)
        await resumed.exited()
        #expect(resumed.terminationStatus == 0, "the resumed sync up exited with \(resumed.terminationStatus)")
        return landed
    }
}
