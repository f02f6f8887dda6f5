import Determinism
import EventJournal
import Foundation
import LMDBStore
import LosslessJSON
import SyncTesting
import Testing

/// A large entry's payload is compressed on a second thread while the projections fold it
/// (decision 0034): what is stored is what the sequential path stores, and a fold that throws
/// leaves nothing behind.
@Suite struct CompressionBesideFoldTests {
    /// Options that compress every compressible payload beside the fold (`0`) or none (`Int.max`).
    static func options(besideFoldFrom bytes: Int, compressing: Bool = true) -> JournalOptions {
        var options = JournalOptions()
        options.compressesEntries = compressing
        options.compressionBesideFoldPayloadBytesMin = bytes
        return options
    }

    /// Pages of several sizes around the default threshold, with short entries between them.
    static let drafts: [JournalEntry.Draft] = [
        EntryCompressionTests.page(0, records: 2_000), note("between", 1), EntryCompressionTests.page(1, records: 50),
        EntryCompressionTests.page(2, records: 600),
        JournalEntry.Draft(kind: "binary", payload: incompressibleBytes(70_000)),
    ]

    /// Every stored envelope of `journal`, by sequence.
    static func storedEnvelopes(_ journal: Journal) throws -> [[UInt8]] {
        let last = try journal.lastSequence()
        return try (1...last).map { try EntryCompressionTests.storedEnvelope($0, in: journal) }
    }

    @Test(arguments: [false, true])
    func storedEntryBytesAreTheSameWhetherCompressedBesideTheFoldOrBefore(compressing: Bool) throws {
        var stored: [[[UInt8]]] = []
        for threshold in [0, Int.max, JournalOptions().compressionBesideFoldPayloadBytesMin] {
            let fixture = try JournalFixture()
            defer { fixture.directory.remove() }
            let journal = try fixture.open(options: Self.options(besideFoldFrom: threshold, compressing: compressing))
            defer { try? journal.close() }
            let appended = try journal.append(Self.drafts)
            #expect(try journal.entries(in: 1...UInt64(Self.drafts.count)) == appended)
            #expect(try journal.verify().isConsistent)
            stored.append(try Self.storedEnvelopes(journal))
        }
        #expect(stored[0] == stored[1], "beside the fold against before it")
        #expect(stored[2] == stored[1], "the default threshold against before the fold")
        #expect(stored[0][0].first == (compressing ? 2 : 1), "a page is stored compressed only when asked")
    }

    /// An import (`JournalWriter.store`) takes the same path as an append.
    @Test func anImportStoresTheBytesAnAppendStores() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let source = try fixture.open(options: Self.options(besideFoldFrom: Int.max), subdirectory: "source")
        defer { try? source.close() }
        try source.append(Self.drafts)
        let file = fixture.directory.appending("export.jsonl")
        try Data(EntryCompressionTests.export(source)).write(to: file)
        let copy = try fixture.open(options: Self.options(besideFoldFrom: 0), subdirectory: "copy")
        defer { try? copy.close() }
        #expect(try copy.importEntries(from: file) == Self.drafts.count)
        #expect(try Self.storedEnvelopes(copy) == Self.storedEnvelopes(source))
    }

    @Test func aFoldThatThrowsDuringAnOverlappedAppendRollsBackAndTheNextAppendSucceeds() throws {
        let directory = try TemporaryDirectory("journal")
        defer { directory.remove() }
        let journal = try Journal(
            directory: directory.url, projections: [KindCountsProjection(), RefusingProjection()],
            clock: ManualWallClock(), options: Self.options(besideFoldFrom: 0), logger: .discarding)
        defer { try? journal.close() }
        try journal.append(EntryCompressionTests.page(0))
        let before = try Self.storedEnvelopes(journal)

        var refused = EntryCompressionTests.page(1, records: 2_000)
        refused.kind = RefusingProjection.refusedKind
        #expect(throws: RefusingProjection.Refused.self) {
            try journal.append([EntryCompressionTests.page(2, records: 2_000), refused])
        }
        #expect(try journal.lastSequence() == 1)
        #expect(try Self.storedEnvelopes(journal) == before)
        #expect(try journal.read { try KindCountsProjection.counts(in: $0) } == ["server.page": 1])

        let next = try journal.append(EntryCompressionTests.page(3, records: 2_000))
        #expect(next.sequence == 2)
        #expect(try journal.entry(at: 2) == next)
        #expect(try EntryCompressionTests.storedEnvelope(2, in: journal).first == 2)
        #expect(try journal.read { try KindCountsProjection.counts(in: $0) } == ["server.page": 2])
        #expect(try journal.verify().isConsistent)
    }
}

/// Refuses entries of one kind, as a projection refuses a malformed entry.
private struct RefusingProjection: Projection {
    static let refusedKind: JournalEntry.Kind = "refused.page"
    struct Refused: Error {}
    let name = "refusing"
    let version = 1
    let databaseNames: [String] = []

    func apply(_ entry: JournalEntry, in context: ProjectionContext) throws {
        if entry.kind == Self.refusedKind { throw Refused() }
    }
}
