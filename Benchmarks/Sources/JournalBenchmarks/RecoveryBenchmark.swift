import BenchmarkSupport
import Determinism
import EventJournal
import Foundation
import LMDBStore
import Logging
import LosslessJSON
import MobileSync
import Soups
import SyncTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Recovery after a process is killed, and after a power loss, with one interval of entries
/// folded into the projections since their last checkpoint and never synced, for each
/// ``StoreConfiguration``.
///
/// A child process (this binary, `recovery-child`) creates `recordCount` records and edits one
/// per entry until the journal holds one checkpoint interval (the default policy's 50,000
/// entries) past its last checkpoint, less one, then waits to be killed with SIGKILL. The parent
/// then opens the store as an app would after the kill, and once more as after a power loss
/// (another boot identity: the projections restored from the checkpoint, the interval folded).
struct RecoveryBenchmark {
    var recordCount = 10_000
    var interval = CheckpointPolicy().entryCountMax
    var configurations = StoreConfiguration.allCases
    var report = Report()

    /// A boot identity named on the command line, so parent and child agree or differ on purpose.
    struct NamedBoot: BootIdentity {
        var name: String
        func current() -> String { name }
    }

    /// The store's options in parent and child: a checkpoint every `interval` entries, and
    /// `configuration`'s settings, with `key` when encrypted.
    static func options(
        boot: String, interval: UInt64, configuration: StoreConfiguration, key: StoreKey?
    ) throws -> JournalOptions {
        var options = JournalOptions()
        // The interval is the store's own, so a small one gives a quick run of the same shape.
        options.checkpoints.entryCountMax = interval
        options.environment.mapSizeBytes = 4 << 30
        // 100,000 single-entry commits synced would take minutes, and a SIGKILL leaves the page
        // cache, so what the journal's sync writes is not what recovery reads here.
        options.environment.flushesOnCommit = false
        options.bootIdentity = NamedBoot(name: boot)
        return try configuration.applied(to: options, key: key)
    }

    func run() async throws -> RecoveryFigures {
        var figures = RecoveryFigures(
            parameters: RecoveryFigures.Parameters(records: recordCount, checkpointInterval: Int(interval)))
        for configuration in configurations {
            report.line(configuration.label)
            try measure(configuration, into: &figures)
        }
        return figures
    }

    private func measure(_ configuration: StoreConfiguration, into figures: inout RecoveryFigures) throws {
        let directory = try TemporaryDirectory("bench-recovery")
        defer { directory.remove() }
        let store = directory.appending("store")
        // Parent and child must share the key; a random one per store, handed to the child.
        let keyHex = StoreKey.generateHex()
        let key = configuration == .defaultEncrypted ? try StoreKey(hex: keyHex) : nil
        let entries = try runChildUntilKilled(store: store, configuration: configuration, keyHex: keyHex)
        // The files as the kill left them, for the power-loss case below.
        let copy = directory.appending("copy")
        try FileManager.default.copyItem(at: store, to: copy)
        // After a reboot nothing is waiting to be written: sync every file, so the open does not
        // pay for writing out the gigabytes the copy just dirtied, and the kernel is not writing
        // out the child's store in the background while the open is timed.
        sync()
        let figureKey = configuration.rawValue
        for (label, url, boot) in [("SIGKILL", store, "boot-1"), ("a power loss", copy, "boot-2")] {
            var opened: SyncStore?
            let elapsed = try ContinuousClock().measure {
                opened = try SyncStore(
                    directory: url, clock: SystemWallClock(),
                    options: Self.options(boot: boot, interval: interval, configuration: configuration, key: key),
                    logger: .discarding)
            }
            let opening = opened?.journal.openingReport
            let folded = Int(opening?.foldedEntries ?? 0)
            let millis = (elapsed.inSeconds * 1000).rounded(decimals: 1)
            if boot == "boot-1" {
                figures.openAfterKillMillis[figureKey] = millis
                figures.foldedAfterKill[figureKey] = folded
            } else {
                figures.openAfterPowerLossMillis[figureKey] = millis
                figures.foldedAfterPowerLoss[figureKey] = folded
            }
            report.line(
                "  open after \(label): \(elapsed) (\(opening?.projections.description ?? ""), folded \(folded))")
        }
        figures.journalEntries[figureKey] = entries
    }

    /// Starts the child on `store`, waits until it says it is ready, kills it with SIGKILL, and
    /// returns the entries it appended.
    private func runChildUntilKilled(store: URL, configuration: StoreConfiguration, keyHex: String) throws -> Int {
        let child = Process()
        child.executableURL = try OwnExecutable.url()
        child.arguments = [
            "recovery-child", "--store", store.path, "--records", String(recordCount), "--interval",
            String(interval), "--configuration", configuration.rawValue, "--key-hex", keyHex,
        ]
        let pipe = Pipe()
        child.standardOutput = pipe
        try child.run()
        let ready = String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        report.line("  \(ready); killed with SIGKILL")
        return Int(ready.split(separator: " ").first ?? "") ?? 0
    }

    /// The child: builds the store, says how far it got, then waits for SIGKILL.
    static func child(
        store: String, recordCount: Int, interval: UInt64, configuration: StoreConfiguration, key: StoreKey?
    ) throws -> Never {
        let opened = try SyncStore(
            directory: URL(fileURLWithPath: store), clock: ManualWallClock(tick: .milliseconds(1)),
            idGenerator: IncrementingIDGenerator(),
            options: options(boot: "boot-1", interval: interval, configuration: configuration, key: key),
            logger: .discarding)
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
        let statistics = try opened.journal.statistics()
        let ready =
            "\(try opened.journal.lastSequence()) entries, checkpoints at \(statistics.checkpointSequences), "
            + "horizon \(statistics.horizon)\n"
        FileHandle.standardOutput.write(Data(ready.utf8))
        while true { sleep(60) }
    }
}
