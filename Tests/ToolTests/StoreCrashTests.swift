import Determinism
import EventJournal
import Foundation
import LMDBStore
import LosslessJSON
import MobileSync
import SalesforceSimulator
import Soups
import SyncTesting
import Testing

/// A process working on a store kills itself with SIGKILL at 24 seeded commits of its journal —
/// during local writes, sync downs and sync ups, before or after the commit — and the test
/// checks after every crash what decision 0003 promises: every
/// change the library acknowledged is in the journal and folded into the projections when the
/// store is opened again (nothing committed is lost), and the projections equal a rebuild.
///
/// The store carries over from round to round, so each child also starts by recovering from
/// the previous crash.
@Suite(.serialized) struct StoreCrashTests {
    static let roundCount = 24
    static let modes = ["local", "down", "up"]

    /// What a killed child said it had done.
    struct Acknowledged {
        var lastSequence: UInt64 = 0
        /// The latest name acknowledged for each record, by `_soupEntryId`.
        var names: [Int64: String] = [:]
        /// A name the child was writing when it was killed, not acknowledged: the record may
        /// hold it instead.
        var unacknowledged: [Int64: String] = [:]
        var syncs = 0

        init(_ output: String) {
            for line in output.split(separator: "\n") {
                let words = line.split(separator: " ", maxSplits: 3).map(String.init)
                if words.count == 4, words[0] == "will", words[1] == "update", let entryId = Int64(words[2]) {
                    unacknowledged[entryId] = words[3]
                }
                guard words.count >= 3, words[0] == "ack", let sequence = UInt64(words[1]) else { continue }
                lastSequence = max(lastSequence, sequence)
                switch words[2] {
                case "create", "update":
                    let parts = words.count == 4 ? words[3].split(separator: " ") : []
                    if parts.count == 2, let entryId = Int64(parts[0]) {
                        names[entryId] = String(parts[1])
                        unacknowledged[entryId] = nil
                    }
                case "sync": syncs += 1
                default: break
                }
            }
        }
    }

    @Test func nothingAcknowledgedIsLostWhenAWorkingProcessCrashesAtTwentyFourCommits() async throws {
        let worker = try BuiltProduct("store-crash-worker")
        let directory = try TemporaryDirectory("store-crash")
        defer { directory.remove() }
        let simulator = try SalesforceSimulator(
            configuration: SalesforceSimulator.Configuration(data: .demo(), accessToken: "crash-token"),
            logger: .discarding)
        let server = try await SimulatorServer.start(simulator, logger: .discarding)
        let store = directory.appending("store")
        var random = SplitMix64(seed: 20_261_124)
        var foldedOnOpen = 0
        var latestNames: [Int64: String] = [:]
        for round in 0..<Self.roundCount {
            let mode = Self.modes[round % Self.modes.count]
            let output = directory.appending("round-\(round).out")
            // Past the first round's set-up (the soup and the sync up), into the mode's loop.
            let point = CrashPoint(
                folderName: "journal", commit: Int.random(in: 3...80, using: &random),
                moment: Bool.random(using: &random) ? .afterCommit : .beforeCommit)
            let child = try start(
                worker, [store.path, server.url.absoluteString, simulator.accessToken, mode, String(round)],
                output: output, crashingAt: point)
            #expect(try await child.crashedAtItsPoint(), "round \(round) (\(mode), \(point)): no crash")
            let said = Acknowledged(try String(contentsOf: output, encoding: .utf8))

            let reopened = try SyncStore(directory: store, clock: SystemWallClock(), logger: .discarding)
            let report = reopened.journal.openingReport
            #expect(report.projections == .trusted, "round \(round) (\(mode)): \(report)")
            foldedOnOpen += Int(report.foldedEntries)
            #expect(try reopened.journal.lastSequence() >= said.lastSequence, "round \(round): committed entries lost")
            latestNames.merge(said.names) { _, new in new }
            // A write the kill cut off before its ack may have committed: the record then holds
            // the newer name, and that name is the one later rounds must keep.
            for (entryId, name) in said.unacknowledged where byEntryIdName(reopened, entryId) == name {
                latestNames[entryId] = name
            }
            let records = try reopened.soups.query(
                QuerySpec.all("accounts", orderPath: "_soupEntryId", pageSize: 100_000))
            let byEntryId = Dictionary(
                records.compactMap { record in record["_soupEntryId"]?.number?.int64Value.map { ($0, record) } },
                uniquingKeysWith: { first, _ in first })
            for (entryId, name) in latestNames where byEntryId[entryId]?["Name"]?.string != name {
                Issue.record("round \(round): record \(entryId) lost its acknowledged change to \(name)")
            }
            let verification = try reopened.journal.verify()
            #expect(verification.isConsistent, "round \(round): \(verification.divergences)")
        }
        await server.stop()
        print("store crash rounds: entries folded on reopen \(foldedOnOpen)")
    }

    private func byEntryIdName(_ store: SyncStore, _ entryId: Int64) -> String? {
        (try? store.soups.retrieve("accounts", ids: [entryId]))?.first?["Name"]?.string
    }

    private func start(_ worker: BuiltProduct, _ arguments: [String], output: URL, crashingAt point: CrashPoint)
        throws -> Process
    {
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = worker.url
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(point.environment) { _, point in point }
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}
