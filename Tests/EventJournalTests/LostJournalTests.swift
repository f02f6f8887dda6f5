import Determinism
import EventJournal
import Foundation
import LMDBStore
import SyncTesting
import Testing

/// Issue 29: a journal that lost entries (deleted, truncated to 0, an older copy put back) is
/// refused with a typed error that changes no file, and `recoverJournal` keeps the data.
/// Issue 49: a journal file truncated part-way is the same, instead of SIGBUS.
@Suite struct LostJournalTests {
    static let key = try! StoreKey(bytes: [UInt8](repeating: 0x49, count: StoreKey.byteCount))

    /// Where a truncation cuts the journal's data file.
    enum Cut: String, CaseIterable, CustomStringConvertible {
        case atAPageBoundary, insideAPage

        var description: String { rawValue }

        /// The bytes kept of a file of `pageBytes` pages: the two meta pages and one more, and
        /// for a cut inside a page 1,000 bytes of the next. A dozen commits use more pages than
        /// that (entries, meta, keys, main and free-page trees), so pages in use are lost.
        func bytesKept(pageBytes: Int) -> Int {
            self == .atAPageBoundary ? 3 * pageBytes : 3 * pageBytes + 1_000
        }
    }

    /// How a journal loses entries.
    enum Loss: String, CaseIterable, CustomStringConvertible {
        case deleted, truncatedToZero, olderCopy, anotherHistory

        var description: String { rawValue }
    }

    /// A store of 12 notes, checkpointed at 10, with a copy of its journal after 5 notes and
    /// the journal of another store of 12 notes.
    struct Damaged {
        let fixture: JournalFixture
        var store: URL { fixture.directory.appending("store") }
        var journalFile: URL { store.appendingPathComponent("journal/data.mdb") }

        /// The store of 12 notes, its journal file cut by `cut`; sealed with
        /// ``LostJournalTests/key`` when `encrypted`.
        init(_ cut: Cut, encrypted: Bool) throws {
            fixture = try JournalFixture("truncated-journal")
            let journal = try fixture.open(options: Self.options(encrypted: encrypted))
            try journal.append((1...12).map { note("entry \($0)", $0) })
            try journal.close()
            let header = try #require(try DataFileHeader.read(from: journalFile))
            let kept = cut.bytesKept(pageBytes: header.pageSizeBytes)
            let bytes = try Data(contentsOf: journalFile)
            try #require(bytes.count > kept + header.pageSizeBytes, "the journal has pages to lose")
            try bytes.prefix(kept).write(to: journalFile)
        }

        static func options(encrypted: Bool) -> JournalOptions {
            var options = JournalOptions()
            options.checkpoints.entryCountMax = 10
            options.encryption = encrypted ? LostJournalTests.key : nil
            return options
        }

        init(_ loss: Loss) throws {
            fixture = try JournalFixture("lost-journal")
            let options = Self.options(encrypted: false)
            let older = fixture.directory.appending("older")
            let journal = try fixture.open(options: options)
            for n in 1...5 { try journal.append(note("entry \(n)", n)) }
            try journal.close()
            try FileManager.default.copyItem(at: journalFile.deletingLastPathComponent(), to: older)
            let reopened = try fixture.open(options: options)
            for n in 6...12 { try reopened.append(note("entry \(n)", n)) }
            try reopened.close()
            let other = try fixture.open(subdirectory: "other")
            try other.append((1...12).map { note("theirs \($0)", $0) })
            try other.close()
            try damage(loss, older: older)
        }

        private func damage(_ loss: Loss, older: URL) throws {
            let files = FileManager.default
            switch loss {
            case .deleted:
                try files.removeItem(at: journalFile)
            case .truncatedToZero:
                try Data().write(to: journalFile)
            case .olderCopy:
                try files.removeItem(at: journalFile)
                try files.copyItem(at: older.appendingPathComponent("data.mdb"), to: journalFile)
            case .anotherHistory:
                try files.removeItem(at: journalFile)
                try files.copyItem(
                    at: fixture.directory.appending("other/journal/data.mdb"), to: journalFile)
            }
        }

        /// Every file of the store but LMDB's lock files, with its bytes and modification date.
        func snapshot() throws -> [String: Data] {
            try LostJournalTests.snapshot(store)
        }
    }

    /// Every file of the store at `store` but LMDB's lock files (they only list live readers),
    /// with its bytes and modification date.
    static func snapshot(_ store: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = try #require(FileManager.default.enumerator(atPath: store.path))
        for case let path as String in enumerator where !path.hasSuffix("lock.mdb") && path != "store.lock" {
            let url = store.appendingPathComponent(path)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            else {
                files[path + "/"] = Data()
                continue
            }
            let date = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
            files[path] = try Data(contentsOf: url) + Data("\(date?.timeIntervalSince1970 ?? 0)".utf8)
        }
        return files
    }

    @Test(arguments: Loss.allCases)
    func aJournalThatLostEntriesIsATypedErrorNamingBothPositionsAndChangesNoFile(loss: Loss) throws {
        let damaged = try Damaged(loss)
        defer { damaged.fixture.directory.remove() }
        let before = try damaged.snapshot()
        for _ in 0..<2 {
            let error = try #require(throws: JournalError.self) { try damaged.fixture.open() }
            #expect(error.code == .journalBehind)
            #expect(error.message.contains("12"), "names the projections' position: \(error.message)")
            #expect(error.message.contains("recover"))
            #expect(!error.message.contains("\n"))
            #expect(try damaged.snapshot() == before)
        }
        #expect(throws: JournalError.self) {
            try Journal.openExisting(
                directory: damaged.store, projections: [KindCountsProjection()], clock: damaged.fixture.clock,
                logger: .discarding)
        }
        #expect(try damaged.snapshot() == before)
    }

    @Test(arguments: Loss.allCases)
    func recoveryStartsANewJournalFromTheProjectionsAndKeepsTheDamagedOneAside(loss: Loss) throws {
        let damaged = try Damaged(loss)
        defer { damaged.fixture.directory.remove() }
        let lost = loss == .deleted ? nil : try Data(contentsOf: damaged.journalFile)
        let report = try Journal.recoverJournal(
            directory: damaged.store, projections: [KindCountsProjection()], clock: damaged.fixture.clock,
            logger: .discarding)
        #expect(report.baselineSequence == 12)
        #expect(report.recoveredSequence == 13)
        if let lost {
            #expect(try Data(contentsOf: report.keptAside.appendingPathComponent("journal/data.mdb")) == lost)
        }
        let journal = try damaged.fixture.open()
        #expect(
            try journal.read { try KindCountsProjection.counts(in: $0) } == ["note.added": 12, "journal.recovered": 1])
        #expect(try journal.horizon().firstSequence == 13)
        #expect(try journal.append(note("after", 14)).sequence == 14)
        #expect(try journal.verify().isConsistent)
        try journal.close()
        #expect(throws: JournalError.self) {
            try Journal.recoverJournal(
                directory: damaged.store, projections: [KindCountsProjection()], clock: damaged.fixture.clock,
                logger: .discarding)
        }
    }

    /// Opened in this process: a signal would end the test runner, not fail one test.
    @Test(.enabled(if: DataFileHeader.checksLinkedLibrary), arguments: Cut.allCases, [false, true])
    func aTruncatedJournalIsADamagedJournalErrorNamingTheFileAndChangesNoFile(cut: Cut, encrypted: Bool) throws {
        let damaged = try Damaged(cut, encrypted: encrypted)
        defer { damaged.fixture.directory.remove() }
        let options = Damaged.options(encrypted: encrypted)
        let before = try damaged.snapshot()
        let opens: [() throws -> Journal] = [
            { try damaged.fixture.open(options: options) },
            {
                try Journal.openExisting(
                    directory: damaged.store, projections: [KindCountsProjection()], clock: damaged.fixture.clock,
                    options: options, logger: .discarding)
            },
        ]
        for open in opens {
            let error = try #require(throws: JournalError.self) { try open() }
            #expect(error.code == .damagedJournal)
            #expect(error.message.contains(damaged.journalFile.standardizedFileURL.path), "\(error.message)")
            #expect(error.message.contains("truncated"), "\(error.message)")
            #expect(error.message.contains("journal-replay recover"), "\(error.message)")
            #expect(!error.message.contains("\n"))
            #expect(try damaged.snapshot() == before)
        }
    }

    @Test(.enabled(if: DataFileHeader.checksLinkedLibrary), arguments: Cut.allCases)
    func recoveryOfATruncatedJournalKeepsEveryEntryCommittedBeforeTheDamage(cut: Cut) throws {
        let damaged = try Damaged(cut, encrypted: false)
        defer { damaged.fixture.directory.remove() }
        let truncated = try Data(contentsOf: damaged.journalFile)
        let report = try Journal.recoverJournal(
            directory: damaged.store, projections: [KindCountsProjection()], clock: damaged.fixture.clock,
            logger: .discarding)
        #expect(report.baselineSequence == 12)
        #expect(report.reason.contains("damaged"), "\(report.reason)")
        #expect(try Data(contentsOf: report.keptAside.appendingPathComponent("journal/data.mdb")) == truncated)
        let journal = try damaged.fixture.open()
        #expect(
            try journal.read { try KindCountsProjection.counts(in: $0) } == ["note.added": 12, "journal.recovered": 1])
        #expect(try journal.append(note("after", 14)).sequence == 14)
        #expect(try journal.verify().isConsistent)
        try journal.close()
    }

    @Test func aMissingProjectionsFolderAndABumpedProjectionVersionStillRebuild() throws {
        let fixture = try JournalFixture("legit-rebuild")
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        try journal.append((1...4).map { note("n", $0) })
        try journal.close()
        let bumped = try fixture.open(version: 2)
        #expect(bumped.openingReport.projections == .rebuilt)
        try bumped.close()
        try FileManager.default.removeItem(at: fixture.directory.appending("store/projections"))
        let reopened = try fixture.open(version: 2)
        #expect(try reopened.read { try KindCountsProjection.counts(in: $0) } == ["note.added": 4])
    }
}
