import Determinism
import EventJournal
import Foundation
import LMDBStore
import LosslessJSON
import SyncTesting
import Testing

/// Entries whose payload compresses are stored as zstd frames (decision 0029), and read, checked,
/// exported and imported exactly as before.
@Suite struct EntryCompressionTests {
    static let key = try! StoreKey(bytes: [UInt8](repeating: 0xC3, count: StoreKey.byteCount))

    /// A page of records shaped like a server's: repeated field names, a few distinct values.
    static func page(_ number: Int, records: Int = 200) -> JournalEntry.Draft {
        let industries = ["Energy", "Banking", "Retail", "Media"]
        let rows: [JSONValue] = (0..<records).map { index in
            let n = number * records + index
            return [
                "attributes": ["type": "Account", "url": .string("/services/data/v62.0/sobjects/Account/001\(n)")],
                "Id": .string("001000000000\(100_000 + n)AAA"), "Name": .string("Account \(n)"),
                "Industry": .string(industries[n % industries.count]),
                "AnnualRevenue": .number(JSONNumber(Int64(n * 1_000))),
                "BillingCity": .string("City \(n % 37)"),
                "LastModifiedDate": .string("2026-11-28T10:\(n % 60):00.000Z"),
                "Description": n % 5 == 0
                    ? .string("Long description of account \(n), kept for the sales team.") : .null,
            ]
        }
        return JournalEntry.Draft(
            kind: "server.page", header: ["page": .integer(Int64(number))], json: ["records": .array(rows)])
    }

    /// The value `journal.entries` holds for `sequence`, as the journal stores it (opened by the
    /// cipher on an encrypted store).
    static func storedEnvelope(_ sequence: UInt64, in journal: Journal) throws -> [UInt8] {
        let entries = try journal.journalEnvironment.database(named: "journal.entries")
        let key = withUnsafeBytes(of: sequence.bigEndian) { Array($0) }
        return try #require(try journal.journalEnvironment.read { try $0.get(entries, key: key) })
    }

    static func export(_ journal: Journal) throws -> [UInt8] {
        var lines: [UInt8] = []
        _ = try journal.export { lines += $0 }
        return lines
    }

    static func setFormatVersion(_ version: UInt32, of journal: Journal) throws {
        let meta = try journal.journalEnvironment.database(named: "journal.meta")
        try journal.journalEnvironment.write { transaction in
            try transaction.put(
                meta, key: Array("format-version".utf8), value: withUnsafeBytes(of: version.bigEndian) { Array($0) })
        }
    }

    @Test(arguments: [false, true])
    func aPagesPayloadIsStoredCompressedAndReadsBackAsAppended(encrypted: Bool) throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        var options = JournalOptions()
        options.encryption = encrypted ? Self.key : nil
        let journal = try fixture.open(options: options)
        let appended = try journal.append([Self.page(0), note("short", 1), Self.page(1)])

        let page = try Self.storedEnvelope(1, in: journal)
        #expect(page.first == 2, "a page is stored in the compressed envelope")
        #expect(page.count * 4 < appended[0].envelope().count, "\(page.count) of \(appended[0].envelope().count)")
        #expect(try Self.storedEnvelope(2, in: journal) == appended[1].envelope(), "a short entry is stored as it is")
        #expect(try journal.entries(in: 1...3) == appended)
        #expect(try journal.verify().isConsistent)
        try journal.close()

        let reopened = try fixture.open(options: options)
        defer { try? reopened.close() }
        #expect(try reopened.entries(in: 1...3) == appended)
    }

    @Test func withCompressionOffEveryEntryIsStoredInItsCanonicalEnvelope() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        var options = JournalOptions()
        options.compressesEntries = false
        let journal = try fixture.open(options: options)
        defer { try? journal.close() }
        let appended = try journal.append([Self.page(0), note("short", 1)])
        for entry in appended {
            #expect(try Self.storedEnvelope(entry.sequence, in: journal) == entry.envelope())
        }
    }

    /// A store written before compression (format 3, canonical envelopes only) is read as it is;
    /// opened for writing, it records format 4 first, so an older SyncJournal refuses it rather
    /// than take a compressed entry for damage. Exports name the same entries either way.
    @Test func aStoreWrittenBeforeCompressionReadsAsBeforeAndCompressesWhatComesNext() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        var uncompressed = JournalOptions()
        uncompressed.compressesEntries = false
        let old = try fixture.open(options: uncompressed)
        let written = try old.append((0..<3).map { Self.page($0) })
        try Self.setFormatVersion(3, of: old)
        let exportedBefore = try Self.export(old)
        try old.close()

        let journal = try fixture.open()
        defer { try? journal.close() }
        #expect(try journal.statistics().formatVersion == Journal.formatVersion)
        #expect(try journal.entries(in: 1...3) == written)
        #expect(try Self.storedEnvelope(1, in: journal).first == 1)
        let next = try journal.append([Self.page(3)])
        #expect(try Self.storedEnvelope(4, in: journal).first == 2)
        #expect(try journal.verify().isConsistent)

        // The export of the mixed store continues the export of the old one, byte for byte, and
        // round-trips through an import into a new store.
        let exported = try Self.export(journal)
        #expect(Array(exported.prefix(exportedBefore.count)) == exportedBefore)
        #expect(try JSONValue(parsing: Array(Self.exportLines(exported).last!))["version"]?.number?.int64Value == 1)
        let file = fixture.directory.appending("export.jsonl")
        try Data(exported).write(to: file)
        let copy = try fixture.open(subdirectory: "copy")
        defer { try? copy.close() }
        #expect(try copy.importEntries(from: file) == 4)
        #expect(try Self.export(copy) == exported)
        #expect(try copy.entries(in: 1...4) == written + next)
        #expect(try Self.storedEnvelope(1, in: copy).first == 2, "an import stores as an append does")
    }

    static func exportLines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split(separator: UInt8(ascii: "\n"))
    }

    /// The checksum covers the frame, so damage to it is found before anything is decompressed,
    /// like damage to any entry.
    @Test(arguments: [0, 1, 100, 500])
    func aDamagedFrameIsACorruptEntryNamingTheSequence(offsetFromFrameEnd: Int) throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        defer { try? journal.close() }
        try journal.append([note("first", 1), Self.page(0)])
        var stored = try Self.storedEnvelope(2, in: journal)
        stored[stored.count - 5 - offsetFromFrameEnd] ^= 0x10
        let entries = try journal.journalEnvironment.database(named: "journal.entries")
        try journal.journalEnvironment.write {
            try $0.put(entries, key: withUnsafeBytes(of: UInt64(2).bigEndian) { Array($0) }, value: stored)
        }
        let error = try #require(throws: JournalError.self) { try journal.entry(at: 2) }
        #expect(error.code == .corruptEntry)
        #expect(error.sequence == 2)
        #expect(error.message.contains("checksum"))
        #expect(try #require(throws: JournalError.self) { try journal.verify() }.code == .corruptEntry)
    }

    /// A frame that is not zstd's, under a checksum that holds (a writer's bug, or damage the
    /// checksum missed), is a corrupt entry too, never a trap or a wrong payload.
    @Test func aFrameThatDoesNotDecompressIsACorruptEntry() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        defer { try? journal.close() }
        let entry = try #require(try journal.append([Self.page(0)]).first)
        let frame = [UInt8](repeating: 0x5A, count: 64)
        let body = entry.envelopeHead(compressedPayloadCount: frame.count) + frame
        let checksum = body.withUnsafeBytes { CRC32C.checksum($0) }
        let entries = try journal.journalEnvironment.database(named: "journal.entries")
        try journal.journalEnvironment.write {
            try $0.put(
                entries, key: withUnsafeBytes(of: UInt64(1).bigEndian) { Array($0) },
                value: body + withUnsafeBytes(of: checksum.littleEndian) { Array($0) })
        }
        let error = try #require(throws: JournalError.self) { try journal.entry(at: 1) }
        #expect(error.code == .corruptEntry)
        #expect(error.message.contains("does not decompress"))
    }
}
