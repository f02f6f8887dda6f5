import Determinism
import EventJournal
import Foundation
import Logging
import LosslessJSON
import SyncTesting

/// Opens a journal with the kind-counts projection in a fresh temporary directory.
struct JournalFixture {
    let directory: TemporaryDirectory
    let clock = ManualWallClock(WallTime(millisecondsSinceEpoch: 1_700_000_000_000), tick: .milliseconds(1))

    init(_ label: String = "journal") throws {
        directory = try TemporaryDirectory(label)
    }

    func open(
        version: Int = 1, migratableVersions: Set<Int> = [], options: JournalOptions = JournalOptions(),
        subdirectory: String = "store"
    ) throws -> Journal {
        try Journal(
            directory: directory.appending(subdirectory),
            projections: [KindCountsProjection(version: version, migratableVersions: migratableVersions)],
            clock: clock, options: options, logger: .discarding)
    }
}

func note(_ text: String, _ n: Int) -> JournalEntry.Draft {
    JournalEntry.Draft(kind: "note.added", header: ["n": .integer(Int64(n))], json: ["text": .string(text)])
}

/// `count` seeded random bytes: a payload zstd cannot shrink, so an entry weighs what a test
/// about sizes (retention, checkpoints, a full map) counts, compressed entries or not.
func incompressibleBytes(_ count: Int, seed: UInt64 = 29) -> [UInt8] {
    var random = SplitMix64(seed: seed)
    return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &random) }
}
