import Determinism
import EventJournal
import Foundation
import LMDBStore
import SyncTesting
import Testing

/// Folds over many stored entries decode them on a second thread ahead of the fold
/// (`ProjectionEntryDecoder`): each entry must get what its decoder made of it, in journal order,
/// and a failure on either thread must end the fold with its error.
@Suite struct DecodeAheadTests {
    private let decodes = ProcessInfo.processInfo.activeProcessorCount > 1

    private func open(_ fixture: JournalFixture, batchSize: Int, refusingFrom refused: UInt64 = .max) throws -> Journal
    {
        var options = JournalOptions()
        options.rebuildBatchSize = batchSize
        return try Journal(
            directory: fixture.directory.appending("store"),
            projections: [KindCountsProjection(), DecodedValuesProjection(refusedFrom: refused)], clock: fixture.clock,
            options: options, logger: .discarding)
    }

    @Test func aLongFoldGivesEachEntryWhatItsDecoderMadeOfItInJournalOrder() throws {
        let fixture = try JournalFixture("decode-ahead")
        defer { fixture.directory.remove() }
        let journal = try open(fixture, batchSize: 100)
        try journal.append((1...300).map { note("text \($0)", $0) })
        #expect(try DecodedValuesProjection.values(in: journal).allSatisfy { $0.value == "folded alone" })

        try journal.rebuild()
        let values = try DecodedValuesProjection.values(in: journal)
        #expect(values.count == 300)
        for sequence in UInt64(1)...300 {
            // Each transaction's decoder starts from the state folded before it and sees its
            // entries one by one.
            let foldedBefore = (sequence - 1) / 100 * 100
            let expected =
                decodes ? "entry \(sequence), number \(sequence - foldedBefore) after \(foldedBefore)" : "folded alone"
            #expect(values[sequence] == expected)
        }
        #expect(try journal.read { try KindCountsProjection.counts(in: $0) } == ["note.added": 300])
        #expect(try journal.verify().isConsistent)
    }

    /// A transaction of fewer entries than a thread is worth folds them alone.
    @Test func aShortFoldIsNotWorthASecondThread() throws {
        let fixture = try JournalFixture("decode-ahead")
        defer { fixture.directory.remove() }
        let journal = try open(fixture, batchSize: 100)
        try journal.append((1...163).map { note("text \($0)", $0) })
        try journal.rebuild()
        let values = try DecodedValuesProjection.values(in: journal)
        #expect(values[100] == (decodes ? "entry 100, number 100 after 0" : "folded alone"))
        #expect((101...163).allSatisfy { values[$0] == "folded alone" })
    }

    @Test func aFoldRefusedPartWayThrowsTheRefusalAndKeepsTheLastCommittedBatch() throws {
        let fixture = try JournalFixture("decode-ahead")
        defer { fixture.directory.remove() }
        do {
            let journal = try open(fixture, batchSize: 100)
            try journal.append((1...250).map { note("text \($0)", $0) })
        }
        let refusing = try open(fixture, batchSize: 100, refusingFrom: 150)
        #expect(throws: (any Error).self) { try refusing.rebuild() }
        // The first batch committed; the second, refused at its middle, left nothing.
        let folded = try refusing.projectionEnvironment.read { transaction in
            try transaction.statistics(
                refusing.projectionEnvironment.database(named: DecodedValuesProjection.databaseName))
        }
        #expect(folded.entryCount == 100)

        let journal = try open(fixture, batchSize: 100)
        try journal.rebuild()
        #expect(try DecodedValuesProjection.values(in: journal).count == 250)
        #expect(try journal.verify().isConsistent)
    }

    @Test func aDamagedEntryReadAheadIsReportedAtItsSequence() throws {
        let fixture = try JournalFixture("decode-ahead")
        defer { fixture.directory.remove() }
        let journal = try open(fixture, batchSize: 100)
        try journal.append((1...250).map { note("text \($0)", $0) })
        let entries = try journal.journalEnvironment.database(named: "journal.entries")
        let key = withUnsafeBytes(of: UInt64(170).bigEndian) { Array($0) }
        try journal.journalEnvironment.write { transaction in
            var value = try #require(try transaction.get(entries, key: key))
            value[40] ^= 0x01
            try transaction.put(entries, key: key, value: value)
        }
        let error = try #require(throws: JournalError.self) { try journal.rebuild() }
        #expect(error.code == .corruptEntry)
        #expect(error.sequence == 170)
    }
}

/// Stores, for each entry, what its fold was given: its decoder's value, or "folded alone".
private struct DecodedValuesProjection: Projection {
    static let databaseName = "test.decoded-values"
    let name = "decoded-values"
    let version = 1
    let databaseNames = [Self.databaseName]
    /// Entries from this sequence on are refused.
    let refusedFrom: UInt64

    struct Refusal: Error {}

    struct Decoder: ProjectionEntryDecoder {
        let foldedBefore: Int
        var seen = 0

        mutating func decode(_ entry: JournalEntry) -> (any Sendable)? {
            seen += 1
            return "entry \(entry.sequence), number \(seen) after \(foldedBefore)"
        }
    }

    func apply(_ entry: JournalEntry, in context: ProjectionContext) throws {
        try store("folded alone", for: entry, in: context)
    }

    func apply(_ entry: JournalEntry, decoded: (any Sendable)?, in context: ProjectionContext) throws {
        try store(decoded as? String ?? "decoded as nothing", for: entry, in: context)
    }

    func entryDecoder(in context: ProjectionContext) throws -> (any ProjectionEntryDecoder)? {
        Decoder(foldedBefore: try context.transaction.statistics(context.database(named: Self.databaseName)).entryCount)
    }

    private func store(_ value: String, for entry: JournalEntry, in context: ProjectionContext) throws {
        guard entry.sequence < refusedFrom else { throw Refusal() }
        try context.transaction.put(
            context.database(named: Self.databaseName),
            key: withUnsafeBytes(of: entry.sequence.bigEndian) { Array($0) },
            value: Array(value.utf8))
    }

    static func values(in journal: Journal) throws -> [UInt64: String] {
        let database = try journal.projectionEnvironment.database(named: databaseName)
        return try journal.projectionEnvironment.read { transaction in
            var values: [UInt64: String] = [:]
            try transaction.withCursor(database) { cursor in
                try cursor.forEach { key, value in
                    values[key.reduce(0) { $0 << 8 | UInt64($1) }] = String(decoding: value, as: UTF8.self)
                    return true
                }
            }
            return values
        }
    }
}
