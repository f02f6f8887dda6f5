import EventJournal
import Foundation
import SyncTesting
import Testing

/// `Journal.writeCompactCopy(to:)`: a copy with the live pages only, that opens as the same store.
@Suite struct CompactCopyTests {
    private func counts(_ journal: Journal) throws -> [String: UInt64] {
        try journal.read { try KindCountsProjection.counts(in: $0) }
    }

    @Test func theCopyOpensTrustedWithTheSameEntriesProjectionsAndCheckpointsAndIsSmaller() throws {
        let fixture = try JournalFixture("compact-copy")
        defer { fixture.directory.remove() }
        var options = JournalOptions()
        options.checkpoints.entryCountMax = 50
        // Every checkpoint stays, for the copy to carry (a bounded store keeps only its newest).
        options.retention = .unlimited
        let journal = try fixture.open(options: options)
        // Big entries in many commits, then a rebuild: the projections' old pages are freed,
        // never given back, and the copy leaves them out.
        for n in 1...120 {
            try journal.append(JournalEntry.Draft(kind: "note", payload: incompressibleBytes(8_000, seed: UInt64(n))))
        }
        try journal.rebuild()
        let report = try journal.writeCompactCopy(to: fixture.directory.appending("copy"))
        #expect(report.lastSequence == 120)
        #expect(report.checkpointCount == 2)
        #expect(report.copyBytes < report.sourceBytes)

        // The source goes on; the copy is a store of its own, trusted as it was copied.
        try journal.append(note("after the copy", 121))
        let copy = try fixture.open(options: options, subdirectory: "copy")
        #expect(copy.openingReport.projections == .trusted)
        #expect(copy.openingReport.foldedEntries == 0)
        #expect(try copy.lastSequence() == 120)
        #expect(try copy.entries(in: 1...120) == journal.entries(in: 1...120))
        #expect(try counts(copy) == ["note": 120])
        #expect(try copy.verify().isConsistent)
        var sequenceSeen: UInt64 = 0
        try copy.withState(asOf: 60) { _, sequence in sequenceSeen = sequence }
        #expect(sequenceSeen == 60)
        let checkpoints = try FileManager.default.contentsOfDirectory(
            atPath: fixture.directory.appending("copy/checkpoints").path)
        #expect(Set(checkpoints) == ["50", "100"])
    }

    @Test func anExistingDestinationIsRefusedAndLeftAlone() throws {
        let fixture = try JournalFixture("compact-copy-exists")
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        try journal.append(note("one", 1))
        let destination = fixture.directory.appending("taken")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: destination.appendingPathComponent("file"))
        #expect(throws: JournalError.self) { try journal.writeCompactCopy(to: destination) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: destination.path) == ["file"])
        let siblings = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.url.path)
        #expect(!siblings.contains { $0.contains(".partial") })
    }
}
