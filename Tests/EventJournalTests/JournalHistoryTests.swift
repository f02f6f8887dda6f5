import EventJournal
import Foundation
import LMDBStore
import SyncTesting
import Testing

@Suite struct JournalHistoryTests {
    /// 1,000 entries cycling through three kinds: after entry S, kind k has ⌈(S − k) / 3⌉ entries.
    private func makeJournal(_ fixture: JournalFixture) throws -> Journal {
        let journal = try fixture.open()
        try journal.append((1...1000).map { CrashWriterPayload.draft(for: UInt64($0)) })
        return journal
    }

    private func counts(_ journal: Journal, asOf sequence: UInt64, checkpoints: URL) throws -> [String: UInt64] {
        try journal.withState(asOf: sequence, checkpointDirectory: checkpoints, checkpointInterval: 100) { state, _ in
            var counts: [String: UInt64] = [:]
            try state.transaction.withCursor(state.database(named: KindCountsProjection.databaseName)) { cursor in
                try cursor.forEach { key, value in
                    counts[String(decoding: key, as: UTF8.self)] = value.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
                    return true
                }
            }
            return counts
        }
    }

    private func expectedCounts(asOf sequence: UInt64) -> [String: UInt64] {
        var counts: [String: UInt64] = [:]
        for n in stride(from: UInt64(1), through: sequence, by: 1) {
            counts[CrashWriterPayload.draft(for: n).kind.rawValue, default: 0] += 1
        }
        return counts
    }

    @Test(arguments: [UInt64(0), 1, 99, 100, 101, 250, 999, 1000, 5000])
    func stateAsOfASequenceEqualsTheFoldOfThePrefix(sequence: UInt64) throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try makeJournal(fixture)
        let checkpoints = fixture.directory.appending("checkpoints")
        #expect(
            try counts(journal, asOf: sequence, checkpoints: checkpoints) == expectedCounts(asOf: min(sequence, 1000)))
        // The second answer comes from checkpoints and must agree.
        #expect(
            try counts(journal, asOf: sequence, checkpoints: checkpoints) == expectedCounts(asOf: min(sequence, 1000)))
    }

    @Test func foldingPastRoundSequencesLeavesCheckpointsThatLaterReadsStartFrom() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try makeJournal(fixture)
        let checkpoints = fixture.directory.appending("checkpoints")
        _ = try counts(journal, asOf: 450, checkpoints: checkpoints)
        let names = try FileManager.default.contentsOfDirectory(atPath: checkpoints.path).sorted()
        #expect(names == ["100", "200", "300", "400"])
        #expect(try counts(journal, asOf: 333, checkpoints: checkpoints) == expectedCounts(asOf: 333))
    }

    @Test func verifyLeavesTheCheckpointsSoTheFirstQuestionIsAlreadyCheap() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try makeJournal(fixture)
        let checkpoints = fixture.directory.appending("checkpoints")
        #expect(try journal.verify(checkpointDirectory: checkpoints, checkpointInterval: 100).isConsistent)
        let names = try FileManager.default.contentsOfDirectory(atPath: checkpoints.path)
        #expect(names.compactMap { Int($0) }.sorted() == Array(stride(from: 100, through: 1000, by: 100)))
        #expect(try counts(journal, asOf: 777, checkpoints: checkpoints) == expectedCounts(asOf: 777))
        #expect(try journal.verify().isConsistent)  // without a directory it writes none
        #expect(try FileManager.default.contentsOfDirectory(atPath: checkpoints.path).count == names.count)
    }

    @Test func aCheckpointThatNoLongerMatchesTheJournalIsDiscarded() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let checkpoints = fixture.directory.appending("checkpoints")
        do {
            let journal = try makeJournal(fixture)
            _ = try counts(journal, asOf: 250, checkpoints: checkpoints)
        }
        // A different journal that reuses the checkpoint directory: its entry 200 differs.
        let other = try fixture.open(subdirectory: "other")
        try other.append((1...300).map { _ in JournalEntry.Draft(kind: "other.kind") })
        let state = try counts(other, asOf: 250, checkpoints: checkpoints)
        #expect(state == ["other.kind": 250])
    }
}
