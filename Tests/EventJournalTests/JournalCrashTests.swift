import Determinism
import EventJournal
import Foundation
import LMDBStore
import SyncTesting
import Testing

/// A child process that appends in a loop kills itself at seeded commits of its journal (just
/// before one, or just after), and after every crash the test checks that the journal is a
/// checksummed, gap-free prefix of what was appended and that the projections equal a rebuild.
@Suite struct JournalCrashTests {
    @Test func journalSurvivesSIGKILLAtSeededCommits() async throws {
        let fixture = try JournalFixture("crash")
        defer { fixture.directory.remove() }
        let store = fixture.directory.appending("store")
        let writer = try BuiltProduct("journal-crash-writer")
        var generator = SplitMix64(seed: 20_261_122)
        var lastSeen: UInt64 = 0
        for round in 0..<24 {
            // From the child's first appends to deep inside its loop, before or after the commit.
            // Opening a store, new or not, commits to its journal seven times before the first
            // append, so the eighth commit is always past an append.
            let point = CrashPoint(
                folderName: "journal", commit: Int.random(in: 8...60, using: &generator),
                moment: round.isMultiple(of: 2) ? .afterCommit : .beforeCommit)
            let child = try writer.start([store.path, String(round)], addedEnvironment: point.environment)
            #expect(try await child.crashedAtItsPoint(), "round \(round) (\(point)): the child did not crash")

            let journal = try fixture.open()
            let last = try journal.lastSequence()
            #expect(last > lastSeen, "round \(round) (\(point)): the committed batches were lost")
            lastSeen = last
            let counted = try journal.read { reader -> [String: UInt64] in
                var counts: [String: UInt64] = [:]
                guard last > 0 else { return counts }
                try reader.forEachEntry(in: 1...last) { entry in
                    #expect(CrashWriterPayload.matches(entry), "round \(round): entry \(entry.sequence) differs")
                    counts[entry.kind.rawValue, default: 0] += 1
                    return true
                }
                return counts
            }
            #expect(try journal.read { try KindCountsProjection.counts(in: $0) } == counted, "round \(round)")
            let report = try journal.verify()
            #expect(report.isConsistent, "round \(round): \(report.divergences)")
        }
    }
}
