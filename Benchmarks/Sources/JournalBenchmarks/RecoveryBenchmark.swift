import Determinism
import EventJournal
import Foundation
import Logging
import MobileSync
import Soups
import SyncTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Recovery after a process is killed, and after a power loss, with one interval of entries
/// folded into the projections since their last checkpoint and never synced.
///
/// A child process (this binary, `recovery-child`) creates `recordCount` records and edits one
/// per entry until the journal holds one checkpoint interval (the default policy's 50,000
/// entries) past its last checkpoint, less one, then waits to be killed with SIGKILL. The parent
/// then opens the store as an app would after the kill, and once more as after a power loss
/// (another boot identity: the projections restored from the checkpoint, the interval folded).
struct RecoveryBenchmark {
    var recordCount = 10_000
    var interval = CheckpointPolicy().entryCountMax

    /// A boot identity named on the command line, so parent and child agree or differ on purpose.
    struct NamedBoot: BootIdentity {
        var name: String
        func current() -> String { name }
    }

    static func options(boot: String) -> JournalOptions {
        var options = JournalOptions()
        options.environment.mapSizeBytes = 4 << 30
        // 100,000 single-entry commits synced would take minutes, and a SIGKILL leaves the page
        // cache, so what the journal's sync writes is not what recovery reads here.
        options.environment.flushesOnCommit = false
        options.bootIdentity = NamedBoot(name: boot)
        return options
    }

    func run() async throws {
        let directory = try TemporaryDirectory("bench-recovery")
        defer { directory.remove() }
        let store = directory.appending("store")
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["recovery-child", store.path, String(recordCount), String(interval)]
        let pipe = Pipe()
        child.standardOutput = pipe
        try child.run()
        let ready = String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self)
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        print("recovery: \(ready.trimmingCharacters(in: .whitespacesAndNewlines)); killed with SIGKILL")
        // The files as the kill left them, for the power-loss case below.
        let copy = directory.appending("copy")
        try FileManager.default.copyItem(at: store, to: copy)
        let clock = ContinuousClock()
        var killed: SyncStore?
        let afterKill = try clock.measure {
            killed = try SyncStore(
                directory: store, clock: SystemWallClock(), options: Self.options(boot: "boot-1"), logger: .discarding)
        }
        print(
            "open after SIGKILL: \(afterKill) (\(killed?.journal.openingReport.projections.description ?? ""), folded \(killed?.journal.openingReport.foldedEntries ?? 0))"
        )
        var restarted: SyncStore?
        let afterPowerLoss = try clock.measure {
            restarted = try SyncStore(
                directory: copy, clock: SystemWallClock(), options: Self.options(boot: "boot-2"), logger: .discarding)
        }
        let report = restarted?.journal.openingReport
        print(
            "open after a power loss: \(afterPowerLoss) (\(report?.projections.description ?? ""), folded \(report?.foldedEntries ?? 0))"
        )
    }

    /// The child: builds the store, then waits for SIGKILL.
    static func child(store: String, recordCount: Int, interval: UInt64) throws {
        let clock = ManualWallClock(tick: .milliseconds(1))
        let opened = try SyncStore(
            directory: URL(fileURLWithPath: store), clock: clock, idGenerator: IncrementingIDGenerator(),
            options: options(boot: "boot-1"), logger: .discarding)
        try opened.soups.registerSoup(
            "accounts", indexSpecs: [IndexSpec(path: "Id", type: .string), IndexSpec(path: "Name", type: .string)])
        for batch in stride(from: 0, to: recordCount, by: 100) {
            _ = try opened.soups.create(
                "accounts",
                (batch..<batch + 100).map { ["Id": .string("001\($0)"), "Name": .string("Account \($0)")] })
        }
        var generator = SplitMix64(seed: 3)
        // One interval past the first checkpoint, less one entry: the next would write another.
        while try opened.journal.lastSequence() < 2 * interval - 1 {
            _ = try opened.soups.updateLocally(
                "accounts", entryId: Int64.random(in: 1...Int64(recordCount), using: &generator),
                changes: ["Name": .string("Edit \(generator.next() % 1000)")])
        }
        let checkpoints = try opened.journal.statistics().checkpointSequences
        FileHandle.standardOutput.write(
            Data("\(try opened.journal.lastSequence()) entries, checkpoints at \(checkpoints)\n".utf8))
        while true { sleep(60) }
    }
}
