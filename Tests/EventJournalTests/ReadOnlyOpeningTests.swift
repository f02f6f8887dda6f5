import EventJournal
import Foundation
import SyncTesting
import Testing

/// Decision 0024: a journal opened with ``JournalOptions/isReadOnly`` leaves every byte of the
/// store as it was (`lock.mdb` aside) and still answers with every entry of the journal.
@Suite struct ReadOnlyOpeningTests {
    private static var readOnly: JournalOptions {
        var options = JournalOptions()
        options.isReadOnly = true
        return options
    }

    @Test func aReadOnlyOpenOfProjectionsBehindTheJournalFoldsThemInScratchAndWritesNothing() throws {
        let fixture = try JournalFixture("read-only")
        defer { fixture.directory.remove() }
        let store = fixture.directory.appending("store")
        let saved = fixture.directory.appending("saved-projections")
        do {
            let journal = try fixture.open()
            try journal.append((1...10).map { note("text \($0)", $0) })
            try journal.close()
        }
        try FileManager.default.copyItem(at: store.appendingPathComponent("projections"), to: saved)
        do {
            let journal = try fixture.open()
            try journal.append((11...15).map { note("text \($0)", $0) })
            try journal.close()
        }
        // The projections of entry 10 beside a journal of 15: what a writer killed between its
        // journal commits and its projections' commits leaves.
        try FileManager.default.removeItem(at: store.appendingPathComponent("projections"))
        try FileManager.default.copyItem(at: saved, to: store.appendingPathComponent("projections"))
        let before = try StoreFiles(of: store)

        do {
            let journal = try fixture.open(options: Self.readOnly)
            #expect(journal.openingReport.projections == .trusted)
            #expect(journal.openingReport.foldedEntries == 5)
            #expect(try journal.lastSequence() == 15)
            #expect(try journal.read { try KindCountsProjection.counts(in: $0) } == ["note.added": 15])
            #expect(try journal.verify().isConsistent)
            #expect(
                try journal.withState(asOf: 3) { state, _ in try KindCountsProjection.counts(in: state) }
                    == ["note.added": 3])
            #expect(throws: JournalError.self) { try journal.append(note("refused", 16)) }
            try journal.close()
        }
        #expect(try StoreFiles(of: store).changedPaths(since: before) == [])
        // The store itself was not caught up: a writing open still folds the five entries.
        let writing = try fixture.open()
        #expect(writing.openingReport.foldedEntries == 5)
    }

    @Test func aReadOnlyOpenOfMissingProjectionsRebuildsThemInScratchAndWritesNothing() throws {
        let fixture = try JournalFixture("read-only-missing")
        defer { fixture.directory.remove() }
        let store = fixture.directory.appending("store")
        do {
            let journal = try fixture.open()
            try journal.append((1...12).map { note("text \($0)", $0) })
            try journal.close()
        }
        try FileManager.default.removeItem(at: store.appendingPathComponent("projections"))
        let before = try StoreFiles(of: store)
        do {
            let journal = try fixture.open(options: Self.readOnly)
            #expect(journal.openingReport.projections == .rebuilt)
            #expect(try journal.read { try KindCountsProjection.counts(in: $0) } == ["note.added": 12])
            try journal.close()
        }
        #expect(try StoreFiles(of: store).changedPaths(since: before) == [])
    }
}
