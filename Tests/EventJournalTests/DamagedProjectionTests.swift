import Determinism
import EventJournal
import Foundation
import LMDBStore
import LosslessJSON
import SyncTesting
import Testing

/// Issue 25: a damaged projections file (truncated, a zeroed meta page, or noted as damaged by a
/// process that met a bad page) is rebuilt or restored on open, never mapped, and the store
/// answers as before; a journal that is behind stays refused (decisions 0009 and 0013).
@Suite(.enabled(if: DataFileHeader.checksLinkedLibrary)) struct DamagedProjectionTests {
    static let key = try! StoreKey(bytes: [UInt8](repeating: 0x5C, count: StoreKey.byteCount))

    /// How the projections' data file is damaged.
    enum Damage: String, CaseIterable, CustomStringConvertible {
        case truncatedInsideMetaPageZero, truncatedInsideMetaPageOne, truncatedToTwoPages, truncatedToHalf
        case zeroedMetaPageZero, zeroedMetaPageOne

        var description: String { rawValue }

        func apply(to file: URL) throws {
            var bytes = try Data(contentsOf: file)
            let page = 4_096
            switch self {
            case .truncatedInsideMetaPageZero: bytes = bytes.prefix(100)
            case .truncatedInsideMetaPageOne: bytes = bytes.prefix(page + 100)
            case .truncatedToTwoPages: bytes = bytes.prefix(2 * page)
            case .truncatedToHalf: bytes = bytes.prefix((bytes.count / page / 2) * page)
            case .zeroedMetaPageZero: bytes.replaceSubrange(0..<page, with: Data(count: page))
            case .zeroedMetaPageOne: bytes.replaceSubrange(page..<2 * page, with: Data(count: page))
            }
            try bytes.write(to: file)
        }
    }

    /// A store of 300 notes of 60 kinds, closed; `checkpointEvery` entries apart.
    static func makeStore(_ fixture: JournalFixture, encrypted: Bool, checkpointEvery: UInt64) throws -> [JournalEntry
        .Kind: UInt64]
    {
        let journal = try fixture.open(options: options(encrypted: encrypted, checkpointEvery: checkpointEvery))
        for n in 1...300 {
            try journal.append(
                JournalEntry.Draft(
                    kind: JournalEntry.Kind(rawValue: "note.k\(n % 60)"), json: ["text": .string("note \(n)")]))
        }
        let counts = try journal.read { try $0.kindCounts() }
        try journal.close()
        return counts
    }

    static func options(encrypted: Bool, checkpointEvery: UInt64 = 50_000) -> JournalOptions {
        var options = JournalOptions()
        options.encryption = encrypted ? key : nil
        options.checkpoints.entryCountMax = checkpointEvery
        return options
    }

    static func projectionsFile(_ fixture: JournalFixture) -> URL {
        fixture.directory.appending("store").appendingPathComponent("projections/data.mdb")
    }

    @Test(arguments: Damage.allCases, [false, true])
    func aDamagedProjectionsFileIsRebuiltOnOpenAndAnswersAsBefore(damage: Damage, encrypted: Bool) throws {
        let fixture = try JournalFixture("damaged-projections")
        defer { fixture.directory.remove() }
        let before = try Self.makeStore(fixture, encrypted: encrypted, checkpointEvery: 50_000)
        try damage.apply(to: Self.projectionsFile(fixture))
        let journal = try fixture.open(options: Self.options(encrypted: encrypted))
        #expect(journal.openingReport.projections == .rebuilt)
        #expect(journal.openingReport.projectionsDamage != nil)
        #expect(try journal.read { try $0.kindCounts() } == before)
        #expect(try journal.verify().isConsistent)
        try journal.close()
        let again = try fixture.open(options: Self.options(encrypted: encrypted))
        #expect(again.openingReport.projections == .trusted)
        try again.close()
    }

    @Test(arguments: [false, true])
    func aTruncatedProjectionsFileIsRestoredFromTheNewestCheckpoint(encrypted: Bool) throws {
        let fixture = try JournalFixture("damaged-projections-checkpoint")
        defer { fixture.directory.remove() }
        let before = try Self.makeStore(fixture, encrypted: encrypted, checkpointEvery: 100)
        try Damage.truncatedToTwoPages.apply(to: Self.projectionsFile(fixture))
        let journal = try fixture.open(options: Self.options(encrypted: encrypted, checkpointEvery: 100))
        guard case .restoredCheckpoint(let sequence) = journal.openingReport.projections else {
            Issue.record("expected a restored checkpoint, got \(journal.openingReport.projections)")
            return
        }
        #expect(sequence >= 100)
        #expect(try journal.read { try $0.kindCounts() } == before)
        try journal.close()
    }

    @Test func aNoteLeftByAProcessThatMetADamagedPageMakesTheNextOpenRebuild() throws {
        let fixture = try JournalFixture("damage-note")
        defer { fixture.directory.remove() }
        let before = try Self.makeStore(fixture, encrypted: false, checkpointEvery: 50_000)
        let projections = Self.projectionsFile(fixture).deletingLastPathComponent()
        var status = stat()
        #expect(stat(Self.projectionsFile(fixture).path, &status) == 0)
        try Data("file \(status.st_dev):\(status.st_ino)\nIS_LEAF(mp)\n".utf8).write(
            to: projections.appendingPathComponent(DamageNote.fileName))
        #expect(DamageNote.read(in: projections)?.message == "IS_LEAF(mp)")
        let journal = try fixture.open()
        #expect(journal.openingReport.projections == .rebuilt)
        #expect(journal.openingReport.projectionsDamage?.contains("IS_LEAF(mp)") == true)
        #expect(try journal.read { try $0.kindCounts() } == before)
        #expect(DamageNote.read(in: projections) == nil)
        try journal.close()
    }

    /// Folding into a file known to be damaged can spread the damage, and a write whose
    /// projections failed after its journal committed used to fold the ever longer tail into
    /// them again at every later write. A failure met while LMDB's note names the live file
    /// stops the instance (here the note is written as LMDB's handler writes it, and the failure
    /// is the write's own, since meeting a damaged page in this process could abort it).
    @Test func aJournalWhoseFailureComesWithADamageNoteRefusesReadsAndWritesUntilOpenedAgain() throws {
        let fixture = try JournalFixture("damage-note-refuses")
        defer { fixture.directory.remove() }
        let before = try Self.makeStore(fixture, encrypted: false, checkpointEvery: 50_000)
        let journal = try fixture.open()
        let last = try journal.lastSequence()
        struct Interrupted: Error {}
        #expect(throws: Interrupted.self) { try journal.write { _ in throw Interrupted() } }
        #expect(try journal.lastSequence() == last, "a failure without a note changes nothing")

        let projections = Self.projectionsFile(fixture).deletingLastPathComponent()
        var status = stat()
        #expect(stat(Self.projectionsFile(fixture).path, &status) == 0)
        try Data("file \(status.st_dev):\(status.st_ino)\nMDB_CORRUPTED\n".utf8).write(
            to: projections.appendingPathComponent(DamageNote.fileName))
        #expect(throws: Interrupted.self) { try journal.write { _ in throw Interrupted() } }
        let refusedWrite = #expect(throws: JournalError.self) {
            try journal.append([JournalEntry.Draft(kind: "after.damage")])
        }
        #expect(refusedWrite?.code == .damaged)
        #expect(refusedWrite?.message.contains("open it again") == true, "\(String(describing: refusedWrite))")
        let refusedRead = #expect(throws: JournalError.self) { try journal.lastSequence() }
        #expect(refusedRead?.code == .damaged)
        try journal.close()

        let healed = try fixture.open()
        #expect(healed.openingReport.projections == .rebuilt)
        #expect(try healed.lastSequence() == last, "the refused write appended nothing")
        #expect(try healed.read { try $0.kindCounts() } == before)
        try healed.append([JournalEntry.Draft(kind: "after.damage")])
        #expect(try healed.verify().isConsistent)
        try healed.close()
    }

    @Test func aNoteAboutAFileThatWasReplacedSinceIsIgnored() throws {
        let fixture = try JournalFixture("stale-damage-note")
        defer { fixture.directory.remove() }
        _ = try Self.makeStore(fixture, encrypted: false, checkpointEvery: 50_000)
        let projections = Self.projectionsFile(fixture).deletingLastPathComponent()
        try Data("file 1:1\nIS_LEAF(mp)\n".utf8).write(to: projections.appendingPathComponent(DamageNote.fileName))
        #expect(DamageNote.read(in: projections) == nil)
        let journal = try fixture.open()
        #expect(journal.openingReport.projections == .trusted)
        try journal.close()
    }

    @Test func aMissingJournalBesideDamagedProjectionsIsStillRefusedAndNothingChanges() throws {
        let fixture = try JournalFixture("damaged-projections-lost-journal")
        defer { fixture.directory.remove() }
        _ = try Self.makeStore(fixture, encrypted: false, checkpointEvery: 50_000)
        let store = fixture.directory.appending("store")
        try FileManager.default.removeItem(at: store.appendingPathComponent("journal/data.mdb"))
        try Damage.truncatedToHalf.apply(to: Self.projectionsFile(fixture))
        let damaged = try Data(contentsOf: Self.projectionsFile(fixture))
        #expect {
            try fixture.open()
        } throws: { error in
            (error as? JournalError)?.code == .journalBehind
        }
        #expect(try Data(contentsOf: Self.projectionsFile(fixture)) == damaged)
        #expect(!FileManager.default.fileExists(atPath: store.appendingPathComponent("journal/data.mdb").path))
    }

    /// A zeroed page inside the file passes the checks made before mapping; a process that
    /// meets it while writing (here a child appending without the tools' exit plan) leaves a
    /// note, then ends by LMDB's abort, a fault or an error, or goes on appending with its
    /// projections behind; the next open rebuilds from the journal without mapping the damaged
    /// file.
    @Test func aChildThatMeetsAZeroedPageEndsAndTheNextOpenRebuilds() async throws {
        let fixture = try JournalFixture("damaged-page-child")
        defer { fixture.directory.remove() }
        _ = try Self.makeStore(fixture, encrypted: false, checkpointEvery: 50_000)
        let pristine = fixture.directory.appending("pristine")
        try FileManager.default.copyItem(at: fixture.directory.appending("store"), to: pristine)
        let writer = try BuiltProduct("journal-crash-writer")
        // The pinned snapshot keeps freed pages from reuse, so most of the file's few hundred
        // pages are free; damage only pages the newest snapshot uses, at most 40 of them spread
        // evenly, so the children stay few.
        let header = try #require(try DataFileHeader.read(from: Self.projectionsFile(fixture)))
        let free = try DataFileHeader.freePages(of: Self.projectionsFile(fixture))
        let live = (2...header.lastPage).filter { !free.contains($0) }.map(Int.init)
        let spread = stride(from: 0, to: live.count, by: max(1, live.count / 40)).map { live[$0] }
        // A child that faults ends at once instead of waiting for Swift's backtrace.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        var met = 0
        for page in spread {
            let store = fixture.directory.appending("store")
            try? FileManager.default.removeItem(at: store)
            try FileManager.default.copyItem(at: pristine, to: store)
            var bytes = try Data(contentsOf: Self.projectionsFile(fixture))
            bytes.replaceSubrange(page * 4_096..<(page + 1) * 4_096, with: Data(count: 4_096))
            try bytes.write(to: Self.projectionsFile(fixture))
            // A child ends by LMDB's abort, a fault or a typed error; one whose projection write
            // failed with MDB_CORRUPTED after its journal committed used to go on appending and
            // folding its growing tail into the damaged file until the time limit killed it.
            let output = try await writer.run(
                [store.path, String(page)], environment: environment, timeLimit: .milliseconds(1_500))
            let ended = Date()
            let projections = Self.projectionsFile(fixture).deletingLastPathComponent()
            // Only a child that met the page, or repaired it itself, makes opening here safe:
            // an unmet zeroed page could abort this test process as it aborts an app.
            guard DamageNote.read(in: projections) != nil else { continue }
            if output.timedOut {
                let note = projections.appendingPathComponent(DamageNote.fileName)
                let noted = try #require(
                    try FileManager.default.attributesOfItem(atPath: note.path)[.modificationDate] as? Date)
                #expect(
                    ended.timeIntervalSince(noted) < 0.5,
                    "page \(page): the child went on writing \(ended.timeIntervalSince(noted)) s after it noted the damage"
                )
            }
            met += 1
            let journal = try fixture.open()
            #expect(journal.openingReport.projections == .rebuilt, "page \(page)")
            #expect(journal.openingReport.projectionsDamage != nil, "page \(page)")
            #expect(try journal.verify().isConsistent, "page \(page)")
            try journal.close()
        }
        #expect(met > 0, "no child met a zeroed page")
    }
}
