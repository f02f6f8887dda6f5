import EventJournal
import Foundation
import LMDBStore
import LosslessJSON
import SyncTesting
import Testing

/// Encryption at rest (decision 0006): what reaches the disk, wrong keys, tampering, and
/// re-keying.
@Suite struct EncryptionTests {
    static let keyA = try! StoreKey(bytes: [UInt8](repeating: 0xA1, count: StoreKey.byteCount))
    static let keyB = try! StoreKey(hex: String(repeating: "b2", count: StoreKey.byteCount))
    static let marker = "CONFIDENTIAL-4711"

    static func options(_ key: StoreKey?, checkpointEvery: UInt64 = 50_000) -> JournalOptions {
        var options = JournalOptions()
        options.encryption = key
        options.checkpoints.entryCountMax = checkpointEvery
        // Every checkpoint stays, for the tests of what is sealed in them (a store that bounds
        // its history keeps only its newest).
        options.retention = .unlimited
        return options
    }

    static func secret(_ n: Int) -> JournalEntry.Draft {
        JournalEntry.Draft(
            kind: "note.added", header: ["owner": .string("\(marker)-header-\(n)")],
            json: ["text": .string("\(marker)-payload-\(n)")])
    }

    /// Every file under `directory` that holds `text`.
    static func files(under directory: URL, holding text: String) -> [String] {
        let needle = Data(text.utf8)
        let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        return (walker?.allObjects as? [URL] ?? []).filter { url in
            guard let data = FileManager.default.contents(atPath: url.path) else { return false }
            return data.range(of: needle) != nil
        }.map(\.lastPathComponent)
    }

    /// Writes 40 secret entries with a checkpoint every 10, and closes the store.
    static func fill(_ fixture: JournalFixture, key: StoreKey?, count: Int = 40) throws {
        let journal = try fixture.open(options: options(key, checkpointEvery: 10))
        for n in 1...count { try journal.append(secret(n)) }
        try journal.close()
    }

    /// Runs `body` on the raw LMDB environment of the store's journal or projections, with no
    /// seal: what someone holding the files sees.
    static func withRawEnvironment(_ directory: URL, _ body: (Environment) throws -> Void) throws {
        let environment = try Environment(directory: directory)
        try body(environment)
    }

    // MARK: - What reaches the disk

    @Test func anEncryptedStoreWritesNoRecordHeaderOrPayloadInPlaintext() throws {
        let fixture = try JournalFixture("encrypted")
        defer { fixture.directory.remove() }
        try Self.fill(fixture, key: Self.keyA)
        let store = fixture.directory.appending("store")
        #expect(FileManager.default.fileExists(atPath: store.appendingPathComponent("checkpoints/40").path))
        #expect(Self.files(under: store, holding: Self.marker) == [])

        let journal = try fixture.open(options: Self.options(Self.keyA))
        #expect(try journal.entry(at: 7)?.header["owner"] == .string("\(Self.marker)-header-7"))
        #expect(try journal.read { try KindCountsProjection.counts(in: $0) } == ["note.added": 40])
        #expect(try journal.verify().isConsistent)
    }

    @Test func aPlaintextStoreShowsItsRecordsToAnyoneWhoReadsTheFiles() throws {
        let fixture = try JournalFixture("plaintext")
        defer { fixture.directory.remove() }
        try Self.fill(fixture, key: nil)
        #expect(!Self.files(under: fixture.directory.appending("store"), holding: Self.marker).isEmpty)
    }

    // MARK: - Keys at open

    @Test func aWrongKeyNoKeyOrAKeyForAPlaintextStoreIsAClearErrorAtOpen() throws {
        let fixture = try JournalFixture("keys")
        defer { fixture.directory.remove() }
        try Self.fill(fixture, key: Self.keyA, count: 3)
        #expect(Self.failure { try fixture.open(options: Self.options(Self.keyB)) } == .wrongKey)
        #expect(Self.failure { try fixture.open(options: Self.options(nil)) } == .keyRequired)

        let plain = try JournalFixture("plain")
        defer { plain.directory.remove() }
        try Self.fill(plain, key: nil, count: 3)
        #expect(Self.failure { try plain.open(options: Self.options(Self.keyA)) } == .notEncrypted)
        #expect(try plain.open(options: Self.options(nil)).lastSequence() == 3)
    }

    @Test func keysOfTheWrongLengthOrWithNonHexDigitsAreRefused() throws {
        #expect(Self.failure { try StoreKey(bytes: [UInt8](repeating: 1, count: 16)) } == .invalidKey)
        #expect(Self.failure { try StoreKey(hex: String(repeating: "zz", count: 32)) } == .invalidKey)
        #expect(Self.failure { try StoreKey(hex: "abcd") } == .invalidKey)
        let hex = StoreKey.generateHex()
        #expect(hex.count == 64)
        #expect(throws: Never.self) { try StoreKey(hex: "  \(hex.uppercased())\n") }
        #expect(StoreKey.generateHex() != hex)
    }

    /// The nonce of every sealed entry, in sequence order, as a 96-bit big-endian number.
    @Test func everySealedValueHasItsOwnNonceCountingUpFromARandomStart() throws {
        let fixture = try JournalFixture("nonces")
        defer { fixture.directory.remove() }
        try Self.fill(fixture, key: Self.keyA, count: 300)
        var nonces: [(high: UInt32, low: UInt64)] = []
        try Self.withRawEnvironment(fixture.directory.appending("store").appendingPathComponent("journal")) {
            environment in
            let entries = try environment.database(named: "journal.entries")
            try environment.read { transaction in
                try transaction.withCursor(entries) { cursor in
                    try cursor.forEach { _, sealed in
                        // Generation (1 byte), then the nonce (12 bytes).
                        let nonce = sealed[1..<13]
                        nonces.append(
                            (
                                nonce.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) },
                                nonce.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                            ))
                        return true
                    }
                }
            }
        }
        #expect(nonces.count == 300)
        // One cipher sealed them all, and the projections' values between: every entry's nonce is
        // above the one before, and close to it, as a counter's are.
        for (before, after) in zip(nonces, nonces.dropFirst()) {
            let (low, carry) = before.low.addingReportingOverflow(1)
            let next = (high: before.high &+ (carry ? 1 : 0), low: low)
            #expect(after.high > next.high || (after.high == next.high && after.low >= next.low))
            #expect(after.high != next.high || (after.low >= next.low && after.low - next.low < 1_000))
        }
    }

    // MARK: - Tampering

    @Test func aChangedEntryIsATamperedErrorNamingItsSequenceNeverWrongData() throws {
        let fixture = try JournalFixture("tamper")
        defer { fixture.directory.remove() }
        try Self.fill(fixture, key: Self.keyA, count: 10)
        let store = fixture.directory.appending("store")
        try Self.withRawEnvironment(store.appendingPathComponent("journal")) { environment in
            let entries = try environment.database(named: "journal.entries")
            try environment.write { transaction in
                var sealed = try #require(try transaction.get(entries, key: Self.sequenceKey(5)))
                sealed[sealed.count / 2] ^= 0x01
                try transaction.put(entries, key: Self.sequenceKey(5), value: sealed)
            }
        }
        let journal = try fixture.open(options: Self.options(Self.keyA))
        #expect(try journal.entry(at: 4) != nil)
        let error = try #require(throws: JournalError.self) { try journal.entry(at: 5) }
        #expect(error.code == .tampered)
        #expect(error.sequence == 5)
        #expect(error.message.contains("entry 5"))
        #expect(Self.failure { try journal.verify() } == .tampered)
    }

    @Test func anEntryCopiedUnderAnotherSequenceFailsAuthentication() throws {
        let fixture = try JournalFixture("moved")
        defer { fixture.directory.remove() }
        try Self.fill(fixture, key: Self.keyA, count: 10)
        try Self.withRawEnvironment(fixture.directory.appending("store/journal")) { environment in
            let entries = try environment.database(named: "journal.entries")
            try environment.write { transaction in
                let third = try #require(try transaction.get(entries, key: Self.sequenceKey(3)))
                try transaction.put(entries, key: Self.sequenceKey(4), value: third)
            }
        }
        let journal = try fixture.open(options: Self.options(Self.keyA))
        let error = try #require(throws: JournalError.self) { try journal.entry(at: 4) }
        #expect(error.code == .tampered && error.sequence == 4)
    }

    @Test func aChangedProjectionValueIsATamperedErrorNamingItsDatabase() throws {
        let fixture = try JournalFixture("tamper-projection")
        defer { fixture.directory.remove() }
        try Self.fill(fixture, key: Self.keyA, count: 5)
        try Self.withRawEnvironment(fixture.directory.appending("store/projections")) { environment in
            let counts = try environment.database(named: KindCountsProjection.databaseName)
            try environment.write { transaction in
                let key = Array("note.added".utf8)
                var sealed = try #require(try transaction.get(counts, key: key))
                sealed[sealed.count - 1] ^= 0x80
                try transaction.put(counts, key: key, value: sealed)
            }
        }
        let journal = try fixture.open(options: Self.options(Self.keyA))
        let error = try #require(throws: JournalError.self) {
            try journal.read { try KindCountsProjection.counts(in: $0) }
        }
        #expect(error.code == .tampered)
        #expect(error.message.contains(KindCountsProjection.databaseName))
    }

    // MARK: - The rest of the journal, encrypted

    @Test func historyCompactionAndRebuildWorkOnAnEncryptedStore() throws {
        let fixture = try JournalFixture("encrypted-history")
        defer { fixture.directory.remove() }
        try Self.fill(fixture, key: Self.keyA, count: 60)
        let journal = try fixture.open(options: Self.options(Self.keyA, checkpointEvery: 10))
        let asOf25 = try journal.withState(asOf: 25) { state, _ in try KindCountsProjection.counts(in: state) }
        #expect(asOf25 == ["note.added": 25])
        let compaction = try journal.compact(retention: RetentionPolicy(entryCount: 20))
        #expect(compaction.removedEntries == 40)
        try journal.rebuild()
        #expect(try journal.verify().isConsistent)
        #expect(try journal.read { try KindCountsProjection.counts(in: $0) } == ["note.added": 60])
        #expect(Self.files(under: fixture.directory.appending("store"), holding: Self.marker) == [])
    }

    @Test func anEncryptedStoreRefusesAPlaintextCompactionArchive() throws {
        let fixture = try JournalFixture("archive")
        defer { fixture.directory.remove() }
        try Self.fill(fixture, key: Self.keyA, count: 5)
        var options = Self.options(Self.keyA)
        options.compactionArchive = fixture.directory.appending("archive.jsonl")
        #expect(Self.failure { try fixture.open(options: options) } == .unsupported)
        let journal = try fixture.open(options: Self.options(Self.keyA))
        #expect(
            Self.failure {
                try journal.compact(
                    retention: RetentionPolicy(entryCount: 2), archive: fixture.directory.appending("archive.jsonl"))
            } == .unsupported)
        #expect(try journal.lastSequence() == 5)
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.appending("archive.jsonl").path))
    }

    @Test func observersOfAnEncryptedStoreSeeItsEntriesAndValuesInTheClear() async throws {
        let fixture = try JournalFixture("encrypted-observe")
        defer { fixture.directory.remove() }
        let journal = try fixture.open(options: Self.options(Self.keyA))
        try journal.append(Self.secret(1))
        var entries = try journal.observeEntries(after: 0).makeAsyncIterator()
        var counts = journal.observeValue(
            reevaluatingFor: { $0.kind == "note.added" }, read: { try $0.count(of: "note.added") }
        ).makeAsyncIterator()
        #expect(try await entries.next()?.header["owner"] == .string("\(Self.marker)-header-1"))
        #expect(try await counts.next() == 1)
        try journal.append(Self.secret(2))
        #expect(try await entries.next()?.header["owner"] == .string("\(Self.marker)-header-2"))
        #expect(try await counts.next() == 2)
    }

    @Test func aCompactCopyOfAnEncryptedStoreStaysSealedAndOpensWithTheSameKey() throws {
        let fixture = try JournalFixture("encrypted-copy")
        defer { fixture.directory.remove() }
        try Self.fill(fixture, key: Self.keyA, count: 25)
        let copy = fixture.directory.appending("copy")
        do {
            let journal = try fixture.open(options: Self.options(Self.keyA))
            _ = try journal.writeCompactCopy(to: copy)
        }
        #expect(Self.files(under: copy, holding: Self.marker) == [])
        #expect(Self.failure { try fixture.open(options: Self.options(Self.keyB), subdirectory: "copy") } == .wrongKey)
        let reopened = try fixture.open(options: Self.options(Self.keyA), subdirectory: "copy")
        #expect(try reopened.read { try KindCountsProjection.counts(in: $0) } == ["note.added": 25])
        #expect(try reopened.verify().isConsistent)
    }

    /// The code of the journal error `body` throws, or `nil` when it throws none.
    static func failure<T>(_ body: () throws -> T) -> JournalError.Code? {
        do {
            _ = try body()
            return nil
        } catch {
            return (error as? JournalError)?.code
        }
    }

    static func sequenceKey(_ sequence: UInt64) -> [UInt8] {
        withUnsafeBytes(of: sequence.bigEndian, Array.init)
    }
}
