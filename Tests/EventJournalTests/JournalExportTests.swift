import EventJournal
import Foundation
import LosslessJSON
import SyncTesting
import Testing

@Suite struct JournalExportTests {
    /// Entries that exercise every export path: inline JSON, JSON with line breaks and
    /// padding, binary bytes, unicode, and every header type.
    private static let drafts: [JournalEntry.Draft] = [
        JournalEntry.Draft(kind: "server.page", header: ["page": .integer(0)], json: ["records": [["Id": "001"]]]),
        JournalEntry.Draft(
            kind: "server.page", header: ["page": .integer(1), "last": .bool(true)],
            payload: Array("{\n  \"Name\" : \"Zoë \\u00e9\",\n  \"Amount\": 1.50E+2\n}".utf8), payloadFormat: .json),
        JournalEntry.Draft(kind: "padded", payload: Array("  [1, 2 ,3]  ".utf8), payloadFormat: .json),
        JournalEntry.Draft(kind: "blob", header: ["soup": .string("ü accounts")], payload: [0, 1, 0xFF, 0x0A, 0x22]),
        JournalEntry.Draft(kind: "empty"),
        JournalEntry.Draft(kind: "string.payload", payload: Array("\"tab\\tquote\\\"\"".utf8), payloadFormat: .json),
    ]

    private func exportBytes(_ journal: Journal) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try journal.export { bytes.append(contentsOf: $0) }
        return bytes
    }

    @Test func exportImportExportIsByteIdentical() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let original = try fixture.open(subdirectory: "a")
        try original.append(Self.drafts)
        let first = try exportBytes(original)
        let file = fixture.directory.appending("export.jsonl")
        try Data(first).write(to: file)

        let copy = try fixture.open(subdirectory: "b")
        #expect(try copy.importEntries(from: file) == UInt64(Self.drafts.count))
        let second = try exportBytes(copy)
        #expect(second == first)
        #expect(try copy.entries(in: 1...6) == original.entries(in: 1...6))
        #expect(try copy.verify().isConsistent)
        #expect(
            try copy.read { try KindCountsProjection.counts(in: $0) }
                == original.read { try KindCountsProjection.counts(in: $0) })
    }

    @Test func exportWritesOneSortedJSONObjectPerLine() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        try journal.append(Self.drafts)
        let lines = String(decoding: try exportBytes(journal), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == Self.drafts.count)
        #expect(lines[0].hasPrefix(#"{"checksum":"#))
        #expect(lines[0].contains(#""payload":{"records":[{"Id":"001"}]},"payloadFormat":"json","sequence":1,"#))
        #expect(lines[1].contains(#""payloadBase64":"#))
        #expect(lines[3].contains(#""header":{"soup":"ü accounts"}"#))
        for line in lines {
            #expect(throws: Never.self) { try JSONValue(parsing: String(line)) }
        }
    }

    @Test func exportStopsAtTheRequestedSequence() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        try journal.append(Self.drafts)
        var lines = 0
        #expect(try journal.export(upTo: 2) { _ in lines += 1 } == 2)
        #expect(lines == 2)
    }

    @Test(arguments: [
        ("\"checksum\":", "\"checksum\":1"),
        ("\"sequence\":2", "\"sequence\":3"),
        ("\"version\":1", "\"version\":9"),
        ("\"kind\":\"padded\"", "\"kind\":\"padder\""),
        ("}\n", "\n"),
    ])
    func importRejectsADamagedFileAndWritesNothing(find: String, replace: String) throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let original = try fixture.open(subdirectory: "a")
        try original.append(Self.drafts)
        var text = String(decoding: try exportBytes(original), as: UTF8.self)
        let range = try #require(text.range(of: find, range: text.range(of: "\n")!.upperBound..<text.endIndex))
        text.replaceSubrange(range, with: replace)
        let file = fixture.directory.appending("damaged.jsonl")
        try Data(text.utf8).write(to: file)
        let copy = try fixture.open(subdirectory: "b")
        let error = try #require(throws: JournalError.self) { try copy.importEntries(from: file) }
        #expect(error.code == .malformedExport)
        #expect(error.message.contains("line"))
        #expect(try copy.lastSequence() == 0)
    }

    @Test func importOfAMissingFileIsATypedError() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        let error = try #require(throws: JournalError.self) {
            try journal.importEntries(from: fixture.directory.appending("absent.jsonl"))
        }
        #expect(error.code == .malformedExport)
    }

    /// Issue 29: `/dev/zero` was read for ever. Only regular files are read, and a line past
    /// the longest an export line can be is an error before the next chunk is read.
    @Test func importReadsOnlyRegularFilesAndBoundsEveryLine() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        for special in ["/dev/zero", "/dev/null", fixture.directory.url.path] {
            let error = try #require(throws: JournalError.self) {
                try journal.importEntries(from: URL(fileURLWithPath: special))
            }
            #expect(error.code == .malformedExport)
            #expect(error.message.contains("not a regular file"))
        }
        let long = fixture.directory.appending("long.jsonl")
        try Data(repeating: UInt8(ascii: "x"), count: 64).write(to: long)
        let error = try #require(throws: JournalError.self) {
            try JSONLinesFile.forEachLine(in: long, lineBytesMax: 16) { _, _ in }
        }
        #expect(error.message.contains("longer than 16 bytes"))
        #expect(try journal.lastSequence() == 0)
    }
}
