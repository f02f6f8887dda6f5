// A child process for the crash-safety tests: it appends batches to a journal until it is
// killed. Usage: journal-crash-writer DIRECTORY SEED
import EventJournal
import Foundation
import Logging
import SyncCore
import SyncTesting

let arguments = CommandLine.arguments
guard arguments.count == 3, let seed = UInt64(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: journal-crash-writer DIRECTORY SEED\n".utf8))
    exit(2)
}
do {
    let journal = try Journal(
        directory: URL(fileURLWithPath: arguments[1]), projections: [KindCountsProjection()],
        clock: ManualWallClock(tick: .milliseconds(1)), logger: .discarding)
    var generator = SplitMix64(seed: seed)
    while true {
        let batchSize = Int.random(in: 1...40, using: &generator)
        try journal.write { writer in
            for _ in 0..<batchSize {
                try writer.append(CrashWriterPayload.draft(for: writer.nextSequence))
            }
        }
    }
} catch {
    FileHandle.standardError.write(Data("journal-crash-writer: \(error)\n".utf8))
    exit(3)
}
