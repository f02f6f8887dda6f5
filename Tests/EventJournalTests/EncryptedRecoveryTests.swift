import Determinism
import EventJournal
import Foundation
import LMDBStore
import SyncTesting
import Testing

/// Issue 49: `recoverJournal` on an encrypted store whose journal is gone or truncated, with
/// the copy of its wrapped keys kept outside the journal (decision 0026): the right key
/// recovers the store, a wrong one is refused with every file as it was, and the copy follows
/// key rotations.
@Suite struct EncryptedRecoveryTests {
    typealias Damaged = LostJournalTests.Damaged
    static let key = LostJournalTests.key
    static let otherKey = try! StoreKey(bytes: [UInt8](repeating: 0x50, count: StoreKey.byteCount))

    static func options(_ key: StoreKey?) -> JournalOptions {
        var options = Damaged.options(encrypted: true)
        options.encryption = key
        return options
    }

    static let counts: [String: UInt64] = ["note.added": 12, "journal.recovered": 1]

    /// An encrypted store of 12 notes, checkpointed at 10, whose journal file was deleted.
    static func deletedJournal(_ label: String) throws -> (fixture: JournalFixture, store: URL) {
        let fixture = try JournalFixture(label)
        let journal = try fixture.open(options: options(key))
        try journal.append((1...12).map { note("entry \($0)", $0) })
        try journal.close()
        let store = fixture.directory.appending("store")
        try FileManager.default.removeItem(at: store.appendingPathComponent("journal/data.mdb"))
        return (fixture, store)
    }

    static func recover(_ store: URL, fixture: JournalFixture, key: StoreKey?) throws -> JournalRecoveryReport {
        try Journal.recoverJournal(
            directory: store, projections: [KindCountsProjection()], clock: fixture.clock, options: options(key),
            logger: .discarding)
    }

    static func snapshot(_ store: URL) throws -> [String: Data] {
        try LostJournalTests.snapshot(store)
    }

    @Test func aDeletedJournalOfAnEncryptedStoreIsRecoveredWithItsKeyAndKeepsEveryRecord() throws {
        let (fixture, store) = try Self.deletedJournal("encrypted-recover")
        defer { fixture.directory.remove() }
        let report = try Self.recover(store, fixture: fixture, key: Self.key)
        #expect(report.baselineSequence == 12)
        let journal = try fixture.open(options: Self.options(Self.key))
        #expect(try journal.read { try KindCountsProjection.counts(in: $0) } == Self.counts)
        #expect(try journal.append(note("after", 14)).sequence == 14)
        #expect(try journal.verify().isConsistent)
        try journal.close()
        let refused = try #require(throws: JournalError.self) { try fixture.open(options: Self.options(Self.otherKey)) }
        #expect(refused.code == .wrongKey)
        #expect(EncryptionTests.files(under: store, holding: "entry 1").isEmpty, "nothing reaches the disk in clear")
    }

    @Test func aWrongKeyIsRefusedBeforeRecoveryChangesAnyFile() throws {
        let (fixture, store) = try Self.deletedJournal("encrypted-recover-wrong-key")
        defer { fixture.directory.remove() }
        let before = try Self.snapshot(store)
        let wrong = try #require(throws: JournalError.self) {
            try Self.recover(store, fixture: fixture, key: Self.otherKey)
        }
        #expect(wrong.code == .wrongKey)
        #expect(try Self.snapshot(store) == before)
        let keyless = try #require(throws: JournalError.self) { try Self.recover(store, fixture: fixture, key: nil) }
        #expect(keyless.code == .keyRequired)
        #expect(try Self.snapshot(store) == before)
        #expect(try Self.recover(store, fixture: fixture, key: Self.key).baselineSequence == 12)
    }

    @Test(.enabled(if: DataFileHeader.checksLinkedLibrary), arguments: LostJournalTests.Cut.allCases)
    func aTruncatedJournalOfAnEncryptedStoreIsRecoveredWithItsKey(cut: LostJournalTests.Cut) throws {
        let damaged = try Damaged(cut, encrypted: true)
        defer { damaged.fixture.directory.remove() }
        let before = try Self.snapshot(damaged.store)
        let wrong = try #require(throws: JournalError.self) {
            try Self.recover(damaged.store, fixture: damaged.fixture, key: Self.otherKey)
        }
        #expect(wrong.code == .wrongKey)
        #expect(try Self.snapshot(damaged.store) == before)
        let truncated = try Data(contentsOf: damaged.journalFile)
        let report = try Self.recover(damaged.store, fixture: damaged.fixture, key: Self.key)
        #expect(report.reason.contains("damaged"), "\(report.reason)")
        #expect(try Data(contentsOf: report.keptAside.appendingPathComponent("journal/data.mdb")) == truncated)
        let journal = try damaged.fixture.open(options: Self.options(Self.key))
        #expect(try journal.read { try KindCountsProjection.counts(in: $0) } == Self.counts)
        #expect(try journal.verify().isConsistent)
        try journal.close()
    }

    @Test func afterAKeyRotationTheCopyOpensWithTheNewKeyOnly() throws {
        let fixture = try JournalFixture("encrypted-recover-rotated")
        defer { fixture.directory.remove() }
        let store = fixture.directory.appending("store")
        try EncryptionTests.fill(fixture, key: Self.key, count: 12)
        try Journal.rotateKey(directory: store, from: Self.key, to: Self.otherKey)
        try FileManager.default.removeItem(at: store.appendingPathComponent("journal/data.mdb"))
        let before = try Self.snapshot(store)
        let old = try #require(throws: JournalError.self) { try Self.recover(store, fixture: fixture, key: Self.key) }
        #expect(old.code == .wrongKey)
        #expect(try Self.snapshot(store) == before)
        #expect(try Self.recover(store, fixture: fixture, key: Self.otherKey).baselineSequence == 12)
        let reopened = try fixture.open(options: Self.options(Self.otherKey))
        #expect(try reopened.read { try KindCountsProjection.counts(in: $0) } == Self.counts)
        try reopened.close()
    }

    /// A store written before decision 0026 has no copy: a read-only open leaves it so, the
    /// first writable open writes it, and until then recovery is refused with nothing changed.
    @Test func aStoreWithoutACopyGetsOneAtItsNextWritableOpenAndIsRefusedUntilThen() throws {
        let fixture = try JournalFixture("encrypted-recover-legacy")
        defer { fixture.directory.remove() }
        let store = fixture.directory.appending("store")
        let copy = store.appendingPathComponent("wrapped-keys")
        let journal = try fixture.open(options: Self.options(Self.key))
        try journal.append((1...12).map { note("entry \($0)", $0) })
        try journal.close()
        #expect(FileManager.default.fileExists(atPath: copy.path))
        try FileManager.default.removeItem(at: copy)
        var readOnly = Self.options(Self.key)
        readOnly.isReadOnly = true
        try fixture.open(options: readOnly).close()
        #expect(!FileManager.default.fileExists(atPath: copy.path))
        try fixture.open(options: Self.options(Self.key)).close()
        #expect(FileManager.default.fileExists(atPath: copy.path))

        try FileManager.default.removeItem(at: copy)
        try FileManager.default.removeItem(at: store.appendingPathComponent("journal/data.mdb"))
        let before = try Self.snapshot(store)
        let refusal = try #require(throws: JournalError.self) {
            try Self.recover(store, fixture: fixture, key: Self.key)
        }
        #expect(refusal.code == .unsupported)
        #expect(refusal.message.contains("backup"), "\(refusal.message)")
        #expect(try Self.snapshot(store) == before)
    }

    @Test func aDamagedCopyIsToldApartFromAWrongKey() throws {
        let (fixture, store) = try Self.deletedJournal("encrypted-recover-damaged-copy")
        defer { fixture.directory.remove() }
        let copy = store.appendingPathComponent("wrapped-keys")
        var bytes = try Data(contentsOf: copy)
        bytes[bytes.count - 3] ^= 0x01
        try bytes.write(to: copy)
        let before = try Self.snapshot(store)
        let error = try #require(throws: JournalError.self) { try Self.recover(store, fixture: fixture, key: Self.key) }
        #expect(error.code == .tampered)
        #expect(try Self.snapshot(store) == before)
    }
}
