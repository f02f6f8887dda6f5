import Determinism
import EventJournal
import Foundation
import LMDBStore
import LosslessJSON
import SyncTesting
import Testing

/// The anchor (decision 0016): compaction folds the entries it removes into the state just
/// before the horizon, in an environment of its own, instead of restoring a checkpoint,
/// folding it again and copying it whole.
@Suite struct AnchorTests {
    private func counts(_ journal: Journal) throws -> [String: UInt64] {
        try journal.read { try KindCountsProjection.counts(in: $0) }
    }

    private func counts(_ journal: Journal, asOf sequence: UInt64) throws -> [String: UInt64] {
        try journal.withState(asOf: sequence) { state, _ in try KindCountsProjection.counts(in: state) }
    }

    private func append(_ journal: Journal, through last: UInt64) throws {
        let first = try journal.lastSequence() + 1
        guard first <= last else { return }
        try journal.append((first...last).map { CrashWriterPayload.draft(for: $0) })
    }

    /// Only the tests' own calls compact or write checkpoints.
    private func manualOptions(boot: ManualBootIdentity = ManualBootIdentity()) -> JournalOptions {
        var options = JournalOptions()
        options.retention = .unlimited
        options.compactionBatchSize = 7
        options.rebuildBatchSize = 13
        options.bootIdentity = boot
        return options
    }

    private func anchorFile(_ fixture: JournalFixture) -> URL {
        fixture.directory.appending("store/anchor/data.mdb")
    }

    @Test func eachCompactionFoldsTheRemovedEntriesIntoTheAnchorAndWritesNoCopy() throws {
        let fixture = try JournalFixture("anchor-fold")
        defer { fixture.directory.remove() }
        let journal = try fixture.open(options: manualOptions())
        try append(journal, through: 300)
        #expect(try journal.compact(retention: RetentionPolicy(entryCount: 100)).horizon.firstSequence == 201)
        let first = try journal.statistics()
        #expect(first.anchorSequence == 200)
        #expect(first.checkpointSequences == [])
        let inode = try #require(
            try FileManager.default.attributesOfItem(atPath: anchorFile(fixture).path)[.systemFileNumber] as? Int)

        try append(journal, through: 450)
        #expect(try journal.compact(retention: RetentionPolicy(entryCount: 100)).horizon.firstSequence == 351)
        let second = try journal.statistics()
        #expect(second.anchorSequence == 350)
        #expect(second.checkpointSequences == [])
        // Folded forward in place: the same file, never replaced by a copy.
        #expect(
            try FileManager.default.attributesOfItem(atPath: anchorFile(fixture).path)[.systemFileNumber] as? Int
                == inode)
        #expect(try counts(journal, asOf: 350) == CrashWriterPayload.kindCounts(through: 350))
        #expect(try counts(journal, asOf: 400) == CrashWriterPayload.kindCounts(through: 400))
        #expect(try journal.verify().isConsistent)
        let below = #expect(throws: JournalError.self) { try counts(journal, asOf: 349) }
        #expect(below?.code == .belowHorizon)
    }

    /// The anchor opens with the projections' map, so seeding a large one in a single commit
    /// does not redo that commit at every doubling of a small map.
    @Test func theAnchorOpensWithTheProjectionsMap() throws {
        let fixture = try JournalFixture("anchor-map")
        defer { fixture.directory.remove() }
        var options = manualOptions()
        options.environment.mapSizeBytes = 256 << 20
        let journal = try fixture.open(options: options)
        try append(journal, through: 30)
        try journal.compact(retention: RetentionPolicy(entryCount: 10))
        #expect(try journal.anchor.withEnvironment { $0.mapSizeBytes } >= 256 << 20)
    }

    /// A compaction stopped between the anchor's fold and the horizon's move (here: its
    /// archive cannot be written) leaves the anchor ahead of the horizon. Nothing is lost, the
    /// store verifies and recovers from a power loss, and the next compaction moves the
    /// horizon up to the anchor.
    @Test func aCompactionStoppedAfterTheAnchorsFoldLosesNothingAndTheNextOneMovesTheHorizonUpToIt() throws {
        let fixture = try JournalFixture("anchor-ahead")
        defer { fixture.directory.remove() }
        let boot = ManualBootIdentity()
        let options = manualOptions(boot: boot)
        let journal = try fixture.open(options: options)
        try append(journal, through: 200)
        try journal.compact(retention: RetentionPolicy(entryCount: 150))
        try append(journal, through: 300)
        let unwritable = fixture.directory.appending("archive-is-a-folder")
        try FileManager.default.createDirectory(at: unwritable, withIntermediateDirectories: true)
        #expect(throws: JournalError.self) {
            try journal.compact(retention: RetentionPolicy(entryCount: 100), archive: unwritable)
        }
        #expect(try journal.horizon().firstSequence == 51)
        #expect(try journal.statistics().anchorSequence == 200)
        #expect(try journal.verify().isConsistent)
        #expect(try counts(journal, asOf: 250) == CrashWriterPayload.kindCounts(through: 250))

        // A power loss now: the projections come back from the anchor, ahead of the horizon.
        try append(journal, through: 310)
        journal.abandon()
        try? FileManager.default.removeItem(at: fixture.directory.appending("store/checkpoints"))
        try SyncedSnapshotRecord.remove(in: fixture.directory.appending("store/projections"))
        try PowerLossDamage.damageUnsyncedProjections(of: fixture.directory.appending("store"), how: 11)
        boot.restart()
        let reopened = try fixture.open(options: options)
        #expect(reopened.openingReport.projections == .restoredCheckpoint(200))
        #expect(try counts(reopened) == CrashWriterPayload.kindCounts(through: 310))

        let report = try reopened.compact(retention: RetentionPolicy(entryCount: 200))
        #expect(report.horizon.firstSequence == 201)
        #expect(try reopened.statistics().anchorSequence == 200)
        #expect(try reopened.verify().isConsistent)
    }

    /// A store compacted before the anchor existed keeps the horizon's state as a checkpoint
    /// copy: it answers from it until its next compaction, which seeds the anchor from it and
    /// then removes it.
    @Test func aStoreCompactedBeforeTheAnchorExistedSeedsItFromTheHorizonsCheckpoint() throws {
        let fixture = try JournalFixture("anchor-seed")
        defer { fixture.directory.remove() }
        let options = manualOptions()
        let (horizon, layout) = try {
            let journal = try fixture.open(options: options)
            defer { try? journal.close() }
            try append(journal, through: 300)
            let report = try journal.compact(retention: RetentionPolicy(entryCount: 100))
            return (report.horizon, journal.layout)
        }()
        try Self.turnAnchorIntoCheckpoint(layout, horizon: horizon, signature: "kind-counts@1")

        let journal = try fixture.open(options: options)
        #expect(try journal.statistics().anchorSequence == nil)
        #expect(try journal.statistics().checkpointSequences == [200])
        #expect(try counts(journal, asOf: 200) == CrashWriterPayload.kindCounts(through: 200))
        #expect(try journal.verify().isConsistent)

        try append(journal, through: 400)
        try journal.compact(retention: RetentionPolicy(entryCount: 100))
        let statistics = try journal.statistics()
        #expect(statistics.anchorSequence == 300)
        #expect(statistics.checkpointSequences == [])
        #expect(try counts(journal, asOf: 300) == CrashWriterPayload.kindCounts(through: 300))
        #expect(try journal.verify().isConsistent)
    }

    @Test func aCompactCopyCarriesTheAnchorAndAnswersFromTheHorizon() throws {
        let fixture = try JournalFixture("anchor-copy")
        defer { fixture.directory.remove() }
        let journal = try fixture.open(options: manualOptions())
        try append(journal, through: 120)
        try journal.compact(retention: RetentionPolicy(entryCount: 20))
        _ = try journal.writeCompactCopy(to: fixture.directory.appending("copy"))
        let copy = try fixture.open(options: manualOptions(), subdirectory: "copy")
        #expect(try copy.statistics().anchorSequence == 100)
        #expect(try counts(copy, asOf: 100) == CrashWriterPayload.kindCounts(through: 100))
        #expect(try copy.verify().isConsistent)
    }

    /// Key rotation seals the anchor again too: the old generation is retired once it is done,
    /// so an anchor left under it could no longer be read.
    @Test func rotatingTheKeySealsTheAnchorAgain() throws {
        let fixture = try JournalFixture("anchor-rotate")
        defer { fixture.directory.remove() }
        let store = fixture.directory.appending("store")
        do {
            let journal = try fixture.open(options: EncryptionTests.options(EncryptionTests.keyA))
            for n in 1...45 { try journal.append(EncryptionTests.secret(n)) }
            try journal.compact(retention: RetentionPolicy(entryCount: 10))
            try journal.close()
        }
        #expect(try KeyRotationTests.generations(in: store.appendingPathComponent("anchor")) == [1])
        try Journal.rotateKey(directory: store, from: EncryptionTests.keyA, to: EncryptionTests.keyB)
        #expect(try KeyRotationTests.generations(in: store.appendingPathComponent("anchor")) == [2])
        let journal = try fixture.open(options: EncryptionTests.options(EncryptionTests.keyB))
        #expect(try counts(journal, asOf: 35) == ["note.added": 35])
        #expect(try journal.verify().isConsistent)
    }

    /// Under a byte limit, the first automatic compaction waits until the history beyond the
    /// limit is as large as the projections, since the anchor it creates holds a second copy of
    /// their state; later ones go back to a quarter of the projections' size.
    @Test func theFirstAutomaticCompactionWaitsUntilTheHistoryOutweighsTheProjections() throws {
        let fixture = try JournalFixture("anchor-first")
        defer { fixture.directory.remove() }
        let limit = 16 << 10
        let journal = try openLatestPayloads(fixture, journalBytes: limit)
        var compactions: [(journalBytes: Int, projectionBytes: Int)] = []
        var passedTheOldSlackUncompacted = false
        for n in 1...400 where compactions.count < 2 {
            let journalBytes = try journal.statistics().journalEntryBytes
            let projectionBytes = try journal.projectionEnvironment.usedBytes()
            let horizon = try journal.horizon()
            try journal.append(Self.payloadDraft(n))
            if try journal.horizon() != horizon {
                compactions.append((journalBytes, projectionBytes))
            } else if compactions.isEmpty, journalBytes > limit + max(limit / 4, projectionBytes / 4) + 8_192 {
                passedTheOldSlackUncompacted = true
            }
        }
        try #require(compactions.count == 2)
        #expect(passedTheOldSlackUncompacted)
        // One entry and its page are what the journal may grow by between two checks.
        #expect(compactions[0].journalBytes + 8_192 > limit + compactions[0].projectionBytes)
        #expect(compactions[1].journalBytes < limit + compactions[1].projectionBytes)
        #expect(try journal.verify().isConsistent)
    }

    /// Checkpoint copies count with the history beyond the limit as what the first compaction
    /// frees: a store that checkpoints often compacts sooner, and its compaction removes them.
    @Test func checkpointCopiesCountTowardsWhatTheFirstCompactionFrees() throws {
        let fixture = try JournalFixture("anchor-first-checkpoints")
        defer { fixture.directory.remove() }
        let limit = 16 << 10
        let journal = try openLatestPayloads(fixture, journalBytes: limit, checkpointEvery: 3)
        var first: (journalBytes: Int, projectionBytes: Int, checkpoints: Int)?
        for n in 1...400 where first == nil {
            let before = (
                try journal.statistics().journalEntryBytes, try journal.projectionEnvironment.usedBytes(),
                try journal.statistics().checkpointSequences.count
            )
            try journal.append(Self.payloadDraft(n))
            if try journal.horizon() != .start { first = before }
        }
        let compacted = try #require(first)
        // Before its first compaction a bounded store keeps its newest checkpoint only.
        #expect(compacted.checkpoints == 1)
        #expect(compacted.journalBytes < limit + compacted.projectionBytes)
        // Under bounded history the anchor is the recovery point: no copy is kept beside it.
        let statistics = try journal.statistics()
        #expect(statistics.anchorSequence != nil)
        #expect(statistics.checkpointSequences == [])
    }

    /// A store of ``LatestPayloadsProjection`` that compacts to `journalBytes` by itself.
    private func openLatestPayloads(
        _ fixture: JournalFixture, journalBytes: Int, checkpointEvery: UInt64 = 50_000
    ) throws -> Journal {
        var options = manualOptions()
        options.retention = RetentionPolicy(journalBytes: journalBytes)
        options.checkpoints.entryCountMax = checkpointEvery
        // The limits are counted in 3 KB entries of one repeated letter, which zstd would store
        // in a few dozen bytes: kept as they are, so each entry weighs what the tests count.
        options.compressesEntries = false
        return try Journal(
            directory: fixture.directory.appending("store"), projections: [LatestPayloadsProjection()],
            clock: fixture.clock, options: options, logger: .discarding)
    }

    static func payloadDraft(_ n: Int) -> JournalEntry.Draft {
        JournalEntry.Draft(
            kind: "payload.written", header: ["n": .integer(Int64(n))],
            json: ["text": .string(String(repeating: "x", count: 3_000))])
    }

    /// Writes the anchor as the checkpoint folder a build before decision 0016 left at the
    /// horizon, and removes it.
    static func turnAnchorIntoCheckpoint(_ layout: StoreLayout, horizon: JournalHorizon, signature: String) throws {
        let files = FileManager.default
        let folder = layout.checkpointDirectory.appendingPathComponent("\(horizon.anchorSequence)", isDirectory: true)
        try files.createDirectory(at: folder, withIntermediateDirectories: true)
        let environment = try Environment(directory: layout.anchorDirectory)
        try environment.copy(to: folder, compact: true)
        let data = Array(try Data(contentsOf: folder.appendingPathComponent("data.mdb")))
        let manifest =
            "{\"bytes\":\(data.count),\"crc32c\":\(CRC32C.checksum(data)),\"entryChecksum\":\(horizon.anchorChecksum),"
            + "\"layout\":2,\"projections\":\"\(signature)\",\"sequence\":\(horizon.anchorSequence)}"
        try Data(manifest.utf8).write(to: folder.appendingPathComponent("checkpoint.json"))
        try files.removeItem(at: layout.anchorDirectory)
    }
}

/// Keeps the payloads of the last eight entries: projections of a fixed size, however long the
/// history grows.
private struct LatestPayloadsProjection: Projection {
    let name = "latest-payloads"
    let version = 1
    let databaseNames = ["latest-payloads"]

    func apply(_ entry: JournalEntry, in context: ProjectionContext) throws {
        try context.transaction.put(
            context.database(named: "latest-payloads"), key: [UInt8(entry.sequence % 8)], value: entry.payload)
    }
}
