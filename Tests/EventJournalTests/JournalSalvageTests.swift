import Determinism
import EventJournal
import Foundation
import LMDBStore
import LosslessJSON
import SyncTesting
import Testing

/// Issue 49: `recoverJournal` salvages a truncated journal: the entries still readable before
/// the damage that the projections had not folded are kept in the new journal, as they were,
/// before its `journal.recovered` entry; what the projections hold is kept too.
@Suite struct JournalSalvageTests {
    static let foldedCount = 5
    static let entryCount = 60

    /// A note with a payload large enough that the entries fill many leaf pages.
    static func bulky(_ n: Int) -> JournalEntry.Draft {
        JournalEntry.Draft(
            kind: "note.added", header: ["n": .integer(Int64(n))],
            json: ["text": .string("entry \(n) " + String(repeating: "x", count: 600))])
    }

    /// A store of 60 entries whose projections were set back to entry 5 (a backup restored
    /// beside a newer journal, say), and whose journal file then lost its second half.
    struct Truncated {
        let fixture: JournalFixture
        let options: JournalOptions
        /// Every entry, read before the damage.
        let original: [JournalEntry]
        var store: URL { fixture.directory.appending("store") }

        init(encrypted: Bool) throws {
            fixture = try JournalFixture("salvage")
            var options = JournalOptions()
            options.encryption = encrypted ? EncryptedRecoveryTests.key : nil
            self.options = options
            let journal = try fixture.open(options: options)
            for n in 1...JournalSalvageTests.foldedCount { try journal.append(JournalSalvageTests.bulky(n)) }
            try journal.close()
            let files = FileManager.default
            let projections = fixture.directory.appending("store/projections")
            let older = fixture.directory.appending("older-projections")
            try files.copyItem(at: projections, to: older)
            let reopened = try fixture.open(options: options)
            for n in (JournalSalvageTests.foldedCount + 1)...JournalSalvageTests.entryCount {
                try reopened.append(JournalSalvageTests.bulky(n))
            }
            original = try reopened.entries(in: 1...UInt64(JournalSalvageTests.entryCount))
            try reopened.close()
            try files.removeItem(at: projections)
            try files.copyItem(at: older, to: projections)
            let journalFile = fixture.directory.appending("store/journal/data.mdb")
            let header = try #require(try DataFileHeader.read(from: journalFile))
            let bytes = try Data(contentsOf: journalFile)
            let pages = bytes.count / header.pageSizeBytes
            try bytes.prefix(pages / 2 * header.pageSizeBytes + 1_000).write(to: journalFile)
        }
    }

    @Test(.enabled(if: DataFileHeader.checksLinkedLibrary), arguments: [false, true])
    func recoveryKeepsTheEntriesBeforeTheCutThatTheProjectionsHadNotFolded(encrypted: Bool) throws {
        let truncated = try Truncated(encrypted: encrypted)
        defer { truncated.fixture.directory.remove() }
        let refusal = try #require(throws: JournalError.self) { try truncated.fixture.open(options: truncated.options) }
        #expect(refusal.code == .damagedJournal)

        let report = try Journal.recoverJournal(
            directory: truncated.store, projections: [KindCountsProjection()], clock: truncated.fixture.clock,
            options: truncated.options, logger: .discarding)
        #expect(report.baselineSequence == UInt64(Self.foldedCount))
        try #require(report.salvagedEntryCount > 0, "the entries after the projections' mark before the cut")
        #expect(report.salvagedEntryCount < Self.entryCount - Self.foldedCount, "the cut lost some")
        let last = report.baselineSequence + UInt64(report.salvagedEntryCount)
        #expect(report.recoveredSequence == last + 1)
        #expect(report.description.contains("\(report.salvagedEntryCount) entries"))

        let journal = try truncated.fixture.open(options: truncated.options)
        let kept = try journal.entries(in: (report.baselineSequence + 1)...last)
        #expect(kept == Array(truncated.original[Self.foldedCount..<Int(last)]))
        #expect(try journal.entry(at: last + 1)?.kind == Journal.recoveredEntryKind)
        #expect(
            try journal.read { try KindCountsProjection.counts(in: $0) }
                == ["note.added": last, "journal.recovered": 1])
        #expect(try journal.verify().isConsistent)
        try journal.close()
    }

    @Test(.enabled(if: DataFileHeader.checksLinkedLibrary))
    func aJournalOfAnotherHistoryGivesNothingToSalvage() throws {
        let truncated = try Truncated(encrypted: false)
        defer { truncated.fixture.directory.remove() }
        // The projections of another store of 5 entries: its entry 5 is not this journal's.
        let other = try truncated.fixture.open(subdirectory: "other")
        for n in 1...Self.foldedCount { try other.append(note("theirs \(n)", n)) }
        try other.close()
        let files = FileManager.default
        try files.removeItem(at: truncated.store.appendingPathComponent("projections"))
        try files.copyItem(
            at: truncated.fixture.directory.appending("other/projections"),
            to: truncated.store.appendingPathComponent("projections"))
        let report = try Journal.recoverJournal(
            directory: truncated.store, projections: [KindCountsProjection()], clock: truncated.fixture.clock,
            logger: .discarding)
        #expect(report.salvagedEntryCount == 0)
        #expect(report.recoveredSequence == UInt64(Self.foldedCount) + 1)
    }
}
