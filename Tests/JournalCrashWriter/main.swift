// A child process for the crash-safety tests: it appends batches to a journal until it is
// killed. Usage: journal-crash-writer DIRECTORY SEED [ARCHIVE]
// With ARCHIVE, the journal keeps only its newest entries and compacts itself as it goes,
// appending what it removes to ARCHIVE, and pins a synced snapshot every 60 entries, so kills
// land inside compactions and pins too; once it sees its
// store compacted it creates ARCHIVE.compacted, so a test can wait for that instead of guessing.
// Usage: journal-crash-writer rotate DIRECTORY HEX-KEY-1 HEX-KEY-2 rotates the store's key from
// one to the other and back until it is killed (finishing first whatever rotation a kill left).
import Determinism
import EventJournal
import Foundation
import LMDBStore
import Logging
import SyncTesting

let arguments = CommandLine.arguments
// The test names the commit at which this process kills itself (CrashPoint).
do {
    try CrashPlan.arm(fromEnvironment: ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("journal-crash-writer: \(error)\n".utf8))
    exit(2)
}
if arguments.count == 5, arguments[1] == "rotate" {
    do {
        var keys = (try StoreKey(hex: arguments[3]), try StoreKey(hex: arguments[4]))
        while true {
            try Journal.rotateKey(
                directory: URL(fileURLWithPath: arguments[2]), from: keys.0, to: keys.1, batchSize: 100)
            keys = (keys.1, keys.0)
        }
    } catch {
        FileHandle.standardError.write(Data("journal-crash-writer: \(error)\n".utf8))
        exit(3)
    }
}
guard (3...4).contains(arguments.count), let seed = UInt64(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: journal-crash-writer DIRECTORY SEED [ARCHIVE]\n".utf8))
    exit(2)
}
do {
    var options = JournalOptions()
    // Without an archive the test reads every entry back: the history is kept whole.
    options.retention = .unlimited
    if arguments.count == 4 {
        options.retention = CrashWriterPayload.compactingRetention
        options.compactionArchive = URL(fileURLWithPath: arguments[3])
        options.compactionBatchSize = 25
        options.checkpoints.entryCountMax = 150
        // Pins renewed often, so kills and power losses land inside them too.
        options.checkpoints.pinsSyncedSnapshots = true
        options.checkpoints.snapshotEntryCountMax = 60
    }
    let journal = try Journal(
        directory: URL(fileURLWithPath: arguments[1]), projections: [KindCountsProjection()],
        clock: ManualWallClock(tick: .milliseconds(1)), options: options, logger: .discarding)
    var generator = SplitMix64(seed: seed)
    var compactionAnnounced = arguments.count == 3
    while true {
        let batchSize = Int.random(in: 1...40, using: &generator)
        try journal.write { writer in
            for _ in 0..<batchSize {
                try writer.append(CrashWriterPayload.draft(for: writer.nextSequence))
            }
        }
        if !compactionAnnounced, try journal.horizon().isCompacted {
            _ = FileManager.default.createFile(atPath: arguments[3] + ".compacted", contents: nil)
            compactionAnnounced = true
        }
    }
} catch {
    FileHandle.standardError.write(Data("journal-crash-writer: \(error)\n".utf8))
    exit(3)
}
