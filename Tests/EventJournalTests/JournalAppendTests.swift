import Determinism
import EventJournal
import Foundation
import LMDBStore
import SyncTesting
import Testing

@Suite struct JournalAppendTests {
    @Test func assignsGapFreeSequencesStartingAtOne() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        let first = try journal.append(note("a", 1))
        let batch = try journal.append([note("b", 2), note("c", 3)])
        #expect(first.sequence == 1)
        #expect(batch.map(\.sequence) == [2, 3])
        #expect(try journal.lastSequence() == 3)
        #expect(try journal.entries(in: 1...3).map(\.sequence) == [1, 2, 3])
    }

    @Test func appendAfterReopenContinuesAtTheLastDurableSequence() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        do {
            let journal = try fixture.open()
            try journal.append([note("a", 1), note("b", 2)])
        }
        let reopened = try fixture.open()
        #expect(try reopened.append(note("c", 3)).sequence == 3)
    }

    @Test func storesEntriesExactlyAsGiven() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        let serverJSON = Array("{ \"Id\" : \"001\",\n  \"Amount\": 12.50 }".utf8)
        let draft = JournalEntry.Draft(
            kind: "server.page",
            header: ["soup": .string("accounts"), "page": .integer(-7), "last": .bool(true), "ü": .string("é")],
            payload: serverJSON, payloadFormat: .json)
        let stored = try journal.append(draft)
        let read = try #require(try journal.entry(at: stored.sequence))
        #expect(read == stored)
        #expect(read.payload == serverJSON)
        #expect(read.header["page"] == .integer(-7))
        #expect(read.kind == "server.page")
    }

    /// An append writes its envelope straight into LMDB's page: the bytes and checksum must be
    /// `envelope()`'s, for any header and payload size, empty and overflowing a page included.
    @Test func anEnvelopeWrittenInPlaceIsTheEnvelope() throws {
        let headers: [[String: JournalEntry.HeaderValue]] = [
            [:], ["soup": .string("accounts")], ["b": .integer(-1), "a": .bool(false), "ü": .string("é")],
        ]
        for header in headers {
            for size in [0, 1, 4095, 70_000] {
                let entry = JournalEntry(
                    sequence: UInt64(size + 1), kind: "k", timestamp: WallTime(millisecondsSinceEpoch: 42),
                    header: header, payload: (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) })
                // The fields, the payload, then the CRC-32C of both, little-endian.
                let body = entry.envelopeHead() + entry.payload
                let crc = body.withUnsafeBytes { CRC32C.checksum($0) }
                let expected = body + withUnsafeBytes(of: crc.littleEndian) { Array($0) }
                #expect(entry.envelope() == expected)
                var written = [UInt8](repeating: 0xEE, count: expected.count)
                let checksum = written.withUnsafeMutableBytes {
                    entry.writeEnvelope(head: entry.envelopeHead(), into: $0)
                }
                #expect(written == expected, "\(header) \(size)")
                let stored = expected.suffix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                #expect(checksum == stored)
            }
        }
    }

    @Test func appliesProjectionsInTheSameTransaction() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        let seenInside = try journal.write { writer in
            try writer.append(note("a", 1))
            try writer.append(JournalEntry.Draft(kind: "other"))
            return try KindCountsProjection.counts(in: JournalReaderProbe.reader(writer))
        }
        #expect(seenInside == ["note.added": 1, "other": 1])
        #expect(try journal.read { try KindCountsProjection.counts(in: $0) } == ["note.added": 1, "other": 1])
        #expect(try journal.count(of: "note.added") == 1)
    }

    @Test func aFailingProjectionRollsBackTheWholeWrite() throws {
        struct Refusing: Projection {
            let name = "refusing"
            let version = 1
            let databaseNames: [String] = []
            struct Refused: Error {}
            func apply(_ entry: JournalEntry, in context: ProjectionContext) throws {
                if entry.kind == "refused" { throw Refused() }
            }
        }
        let directory = try TemporaryDirectory("journal")
        defer { directory.remove() }
        let journal = try Journal(
            directory: directory.url, projections: [KindCountsProjection(), Refusing()], clock: ManualWallClock(),
            logger: .discarding)
        try journal.append(note("kept", 1))
        #expect(throws: Refusing.Refused.self) {
            try journal.append([note("lost", 2), JournalEntry.Draft(kind: "refused")])
        }
        #expect(try journal.lastSequence() == 1)
        #expect(try journal.read { try KindCountsProjection.counts(in: $0) } == ["note.added": 1])
        #expect(try journal.verify().isConsistent)
    }

    @Test(arguments: [
        JournalEntry.Draft(kind: ""),
        JournalEntry.Draft(kind: JournalEntry.Kind(rawValue: String(repeating: "k", count: 256))),
        JournalEntry.Draft(kind: "bad.json", payload: Array("{not json".utf8), payloadFormat: .json),
        JournalEntry.Draft(kind: "bad.header", header: ["": .bool(true)]),
    ])
    func refusesInvalidEntriesAndStoresNothing(draft: JournalEntry.Draft) throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        #expect(throws: JournalError.self) { try journal.append([note("first", 1), draft]) }
        #expect(try journal.lastSequence() == 0)
    }

    @Test func timestampsNeverGoBackwards() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        let later = try journal.append(
            JournalEntry.Draft(kind: "k", timestamp: WallTime(millisecondsSinceEpoch: 1_800_000_000_000)))
        fixture.clock.set(WallTime(millisecondsSinceEpoch: 1_000))
        let next = try journal.append(JournalEntry.Draft(kind: "k"))
        #expect(next.timestamp == later.timestamp)
    }

    @Test func readsTheTailAndCountsByKind() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        try journal.append((1...10).map { note("n\($0)", $0) } + [JournalEntry.Draft(kind: "other")])
        #expect(try journal.tail(3).map(\.sequence) == [9, 10, 11])
        #expect(try journal.tail(50).count == 11)
        #expect(try journal.count(of: "note.added") == 10)
        #expect(try journal.count(of: "missing") == 0)
        let newestFirst = try journal.read { reader in
            var sequences: [UInt64] = []
            try reader.forEachEntry(in: 4...7, reverse: true) { entry in
                sequences.append(entry.sequence)
                return true
            }
            return sequences
        }
        #expect(newestFirst == [7, 6, 5, 4])
    }

    @Test func aLargeAppendGrowsTheMapAndSucceeds() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        var options = JournalOptions()
        options.environment.mapSizeBytes = 1 << 20
        options.environment.flushesOnCommit = false
        let journal = try fixture.open(options: options)
        let payload = incompressibleBytes(1024)
        let drafts = (0..<8000).map { _ in JournalEntry.Draft(kind: "blob", payload: payload) }
        try journal.append(drafts)
        #expect(try journal.lastSequence() == 8000)
        #expect(journal.journalEnvironment.mapSizeBytes > 1 << 20)
        #expect(try journal.verify().isConsistent)
    }

    @Test func readersKeepTheirSnapshotWhileAWriterAppends() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        try journal.append((1...5).map { note("n\($0)", $0) })
        let (before, after) = try journal.read { reader in
            let before = try reader.lastSequence
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                _ = try? journal.append((6...20).map { note("n\($0)", $0) })
                done.signal()
            }
            done.wait()
            let counts = try KindCountsProjection.counts(in: reader)
            return (before, (try reader.lastSequence, try reader.entry(at: 6), counts))
        }
        #expect(before == 5)
        #expect(after.0 == 5)
        #expect(after.1 == nil)
        #expect(after.2 == ["note.added": 5])
        #expect(try journal.lastSequence() == 20)
    }
}

/// Reads projection state through a writer's transaction, as sync code does before appending.
enum JournalReaderProbe {
    static func reader(_ writer: JournalWriter) -> JournalReader {
        writer.reader
    }
}

@Suite struct JournalStorageFullTests {
    @Test func aFullStoreIsATypedRetryableErrorAndKeepsWhatWasCommitted() throws {
        let fixture = try JournalFixture()
        defer { fixture.directory.remove() }
        var options = JournalOptions()
        options.environment.mapSizeBytes = 1 << 20
        options.environment.mapSizeMaxBytes = 2 << 20
        options.environment.flushesOnCommit = false
        let journal = try fixture.open(options: options)
        try journal.append(note("kept", 1))
        let payload = incompressibleBytes(4096)
        let error = try #require(throws: JournalError.self) {
            try journal.append((0..<2000).map { _ in JournalEntry.Draft(kind: "blob", payload: payload) })
        }
        #expect(error.code == .storageFull)
        #expect(error.isRetryable)
        #expect(try journal.lastSequence() == 1)
        #expect(try journal.entry(at: 1)?.kind == "note.added")
        #expect(try journal.append(note("after", 2)).sequence == 2)
        #expect(try journal.verify().isConsistent)
    }
}
