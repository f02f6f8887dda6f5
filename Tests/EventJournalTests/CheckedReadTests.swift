import Determinism
import EventJournal
import Foundation
import LMDBStore
import LosslessJSON
import SyncTesting
import Testing

/// A plaintext store's projection values carry a CRC-32C checked on every read (decision
/// 0012): damage is a typed error, never a changed value, and the next open heals the store.
@Suite struct CheckedReadTests {
    private let boot = ManualBootIdentity()

    private var options: JournalOptions {
        var options = JournalOptions()
        options.retention = .unlimited
        options.compactionBatchSize = 7
        options.bootIdentity = boot
        return options
    }

    private func counts(_ journal: Journal) throws -> [String: UInt64] {
        try journal.read { try KindCountsProjection.counts(in: $0) }
    }

    /// Expects `body` to throw ``JournalError/Code/damaged``, so it returned no changed value.
    private func expectDamaged(_ body: () throws -> some Any) throws {
        let error = #expect(throws: JournalError.self) { _ = try body() }
        #expect(error?.code == .damaged, "\(String(describing: error))")
    }

    /// Flips one seeded bit of one seeded value of `database`, past the seal.
    private func flipBit(in environment: Environment, database name: String, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let database = try environment.database(named: name).unsealed
        try environment.write { transaction in
            var pairs: [(key: [UInt8], value: [UInt8])] = []
            try transaction.withCursor(database) { cursor in
                try cursor.forEach { key, value in
                    pairs.append((key, value))
                    return true
                }
            }
            var (key, value) = try #require(pairs.randomElement(using: &random))
            let bit = Int.random(in: 0..<(value.count * 8), using: &random)
            value[bit / 8] ^= UInt8(1) << UInt8(bit % 8)
            try transaction.put(database, key: key, value: value)
        }
    }

    @Test(arguments: UInt64(0)..<16)
    func aDamagedValueIsADamagedErrorAndTheNextOpenRebuildsIt(seed: UInt64) throws {
        let fixture = try JournalFixture("checked-\(seed)")
        defer { fixture.directory.remove() }
        let journal = try fixture.open(options: options)
        try journal.append((1...40).map { CrashWriterPayload.draft(for: $0) })
        let original = try counts(journal)
        try flipBit(in: journal.projectionEnvironment, database: KindCountsProjection.databaseName, seed: seed)

        try expectDamaged { try counts(journal) }
        #expect(FileManager.default.fileExists(atPath: journal.layout.projectionDamageMarker.path))
        try journal.close()

        let healed = try fixture.open(options: options)
        #expect(healed.openingReport.projections == .rebuilt)
        #expect(try counts(healed) == original)
        #expect(!FileManager.default.fileExists(atPath: healed.layout.projectionDamageMarker.path))
        #expect(try healed.verify().isConsistent)
    }

    /// A put seals a plaintext value in the page LMDB reserves for it: the bytes must be the
    /// value, then the CRC-32C of the database's name, a zero, the key and the value, at every
    /// length and alignment of the value; `seal` gives the same.
    @Test func sealingInPlaceWritesWhatSealGives() throws {
        let checksummer = ValueChecksummer()
        let bytes = (0..<600).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        for length in [0, 1, 3, 4, 7, 8, 63, 64, 383, 384, 385, 599] {
            for offset in 0..<2 where offset + length <= bytes.count {
                let value = Array(bytes[offset..<offset + length])
                let key = Array(bytes[length % 50..<length % 50 + 9])
                let checked = Array("soups.records".utf8) + [0] + key + value
                let crc = checked.withUnsafeBytes { CRC32C.checksum($0) }
                let expected = value + withUnsafeBytes(of: crc.littleEndian) { Array($0) }
                let sealed = try value.withUnsafeBytes { value in
                    try key.withUnsafeBytes { try checksummer.seal(value, key: $0, database: "soups.records") }
                }
                #expect(sealed == expected)
                var written = [UInt8](repeating: 0, count: checksummer.sealedByteCount(forValueByteCount: length))
                value.withUnsafeBytes { value in
                    key.withUnsafeBytes { key in
                        written.withUnsafeMutableBytes {
                            checksummer.seal(value, key: key, database: "soups.records", into: $0)
                        }
                    }
                }
                #expect(written == expected, "\(length) \(offset)")
            }
        }
    }

    @Test func aValueCopiedUnderAnotherKeyFailsItsChecksum() throws {
        let fixture = try JournalFixture("checked-moved")
        defer { fixture.directory.remove() }
        let journal = try fixture.open(options: options)
        try journal.append([note("a", 1), JournalEntry.Draft(kind: "zeta"), JournalEntry.Draft(kind: "zeta")])
        let database = try journal.projectionEnvironment.database(named: KindCountsProjection.databaseName).unsealed
        try journal.projectionEnvironment.write { transaction in
            let moved = try #require(try transaction.get(database, key: Array("zeta".utf8)))
            try transaction.put(database, key: Array("note.added".utf8), value: moved)
        }
        try expectDamaged { try counts(journal) }
    }

    @Test func aDamagedCompactedStoreIsRestoredFromItsCheckpointAndFoldsTheRest() throws {
        let fixture = try JournalFixture("checked-compacted")
        defer { fixture.directory.remove() }
        let journal = try fixture.open(options: options)
        try journal.append((1...400).map { CrashWriterPayload.draft(for: $0) })
        try journal.compact(retention: RetentionPolicy(entryCount: 50))
        let original = try counts(journal)
        try flipBit(in: journal.projectionEnvironment, database: KindCountsProjection.databaseName, seed: 7)
        try expectDamaged { try counts(journal) }
        try journal.close()

        let healed = try fixture.open(options: options)
        guard case .restoredCheckpoint = healed.openingReport.projections else {
            Issue.record("opened with \(healed.openingReport.projections)")
            return
        }
        #expect(try counts(healed) == original)
        #expect(try healed.verify().isConsistent)
    }

    @Test func aStoreWrittenWithoutChecksumsRebuildsWithThem() throws {
        let fixture = try JournalFixture("checked-old")
        defer { fixture.directory.remove() }
        // The journal is gone (its environments closed) before the files are changed under it.
        let (original, layout) = try {
            let journal = try fixture.open(options: options)
            try journal.append((1...40).map { CrashWriterPayload.draft(for: $0) })
            defer { try? journal.close() }
            return (try counts(journal), journal.layout)
        }()
        try LayoutOneStore.strip(layout.projectionDirectory)

        let reopened = try fixture.open(options: options)
        #expect(reopened.openingReport.projections == .rebuilt)
        #expect(try counts(reopened) == original)
        #expect(try reopened.verify().isConsistent)
    }

    @Test func aCompactedStoreWrittenWithoutChecksumsMigratesItsValuesCheckpointsAndAnchorInPlace() throws {
        let fixture = try JournalFixture("checked-old-compacted")
        defer { fixture.directory.remove() }
        let (original, layout) = try {
            let journal = try fixture.open(options: options)
            try journal.append((1...400).map { CrashWriterPayload.draft(for: $0) })
            try journal.compact(retention: RetentionPolicy(entryCount: 50))
            defer { try? journal.close() }
            return (try counts(journal), journal.layout)
        }()
        try LayoutOneStore.strip(layout.projectionDirectory)
        // The anchor holds the horizon's state (decision 0016); checkpoints only a newer one.
        try LayoutOneStore.strip(layout.anchorDirectory)
        for checkpoint in try LayoutOneStore.checkpointFolders(layout.checkpointDirectory) {
            try LayoutOneStore.stripCheckpoint(checkpoint)
        }

        let reopened = try fixture.open(options: options)
        #expect(reopened.openingReport.projections == .trusted)
        #expect(reopened.openingReport.migratedProjectionsFrom != nil)
        #expect(try counts(reopened) == original)
        let atCheckpoint = try reopened.withState(asOf: 380) { state, _ in try KindCountsProjection.counts(in: state) }
        #expect(atCheckpoint == CrashWriterPayload.kindCounts(through: 380))
        #expect(try reopened.verify().isConsistent)
        try reopened.close()

        // A damaged value after the migration is caught like any other.
        let again = try fixture.open(options: options)
        try flipBit(in: again.projectionEnvironment, database: KindCountsProjection.databaseName, seed: 3)
        try expectDamaged { try counts(again) }
    }
}

/// Turns a store's projections (or a checkpoint) back into layout 1, as a SyncJournal before
/// checked reads wrote them: values without their checksum.
enum LayoutOneStore {
    /// Strips every value's checksum in the environment in `folder` and records layout 1.
    static func strip(_ folder: URL) throws {
        let environment = try Environment(directory: folder)
        let names = try environment.read { try $0.databaseNames() }
        for name in names {
            let database = try environment.database(named: name)
            try environment.write { transaction in
                if name == "journal.fold" {
                    try transaction.put(database, key: Array("layout".utf8), value: [0, 0, 0, 1])
                    return
                }
                var pairs: [(key: [UInt8], value: [UInt8])] = []
                try transaction.withCursor(database) { cursor in
                    try cursor.forEach { key, value in
                        pairs.append((key, value))
                        return true
                    }
                }
                for (key, value) in pairs { try transaction.put(database, key: key, value: Array(value.dropLast(4))) }
            }
        }
    }

    /// The folders of the checkpoints in `directory`.
    static func checkpointFolders(_ directory: URL) throws -> [URL] {
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { UInt64($0) != nil }.map {
            directory.appendingPathComponent($0, isDirectory: true)
        }
    }

    /// Strips the checkpoint in `folder` and writes the manifest a layout-1 build wrote for it.
    static func stripCheckpoint(_ folder: URL) throws {
        let manifestFile = folder.appendingPathComponent("checkpoint.json")
        let manifest = try JSONValue(parsing: Array(try Data(contentsOf: manifestFile)))
        try strip(folder)
        try? FileManager.default.removeItem(at: folder.appendingPathComponent("lock.mdb"))
        let data = Array(try Data(contentsOf: folder.appendingPathComponent("data.mdb")))
        let sequence = try #require(manifest["sequence"]?.number?.int64Value)
        let entryChecksum = try #require(manifest["entryChecksum"]?.number?.int64Value)
        let projections = try #require(manifest["projections"]?.string)
        let text =
            "{\"bytes\":\(data.count),\"crc32c\":\(CRC32C.checksum(data)),\"entryChecksum\":\(entryChecksum),"
            + "\"layout\":1,\"projections\":\"\(projections)\",\"sequence\":\(sequence)}"
        try Data(text.utf8).write(to: manifestFile)
    }
}
