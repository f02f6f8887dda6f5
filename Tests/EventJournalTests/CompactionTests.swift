import Determinism
import EventJournal
import Foundation
import LMDBStore
import LosslessJSON
import SyncTesting
import Testing

/// `Journal.compact`: the oldest entries go, the projections and every state from the horizon
/// on stay exactly as they were.
@Suite struct CompactionTests {
    private func counts(_ journal: Journal) throws -> [String: UInt64] {
        try journal.read { try KindCountsProjection.counts(in: $0) }
    }

    private func appendCrashWriterEntries(_ journal: Journal, through last: UInt64) throws {
        let first = try journal.lastSequence() + 1
        guard first <= last else { return }
        try journal.append((first...last).map { CrashWriterPayload.draft(for: $0) })
    }

    /// Keeps everything unless told otherwise, so only the tests' own calls compact.
    private var manualOptions: JournalOptions {
        var options = JournalOptions()
        options.retention = .unlimited
        options.compactionBatchSize = 7
        options.checkpoints.pinsSyncedSnapshots = true
        return options
    }

    @Test func compactionNeverChangesAnyProjectionAndEveryStateFromTheHorizonOnStays() throws {
        let fixture = try JournalFixture("compact-projections")
        defer { fixture.directory.remove() }
        let journal = try fixture.open(options: manualOptions)
        try appendCrashWriterEntries(journal, through: 1_000)
        let before = try counts(journal)
        var stateAt900: [String: UInt64] = [:]
        try journal.withState(asOf: 900) { state, _ in
            stateAt900 = try KindCountsProjection.counts(in: state)
        }

        let report = try journal.compact(retention: RetentionPolicy(entryCount: 150))
        #expect(report.previousHorizon == .start)
        #expect(report.horizon.firstSequence == 851)
        #expect(report.removedEntries == 850)
        #expect(try journal.horizon() == report.horizon)
        #expect(try counts(journal) == before)
        #expect(before == CrashWriterPayload.kindCounts(through: 1_000))
        #expect(try journal.verify().isConsistent)
        let after900 = try journal.withState(asOf: 900) { state, _ in try KindCountsProjection.counts(in: state) }
        #expect(after900 == stateAt900)
        let atAnchor = try journal.withState(asOf: 850) { state, _ in try KindCountsProjection.counts(in: state) }
        #expect(atAnchor == CrashWriterPayload.kindCounts(through: 850))
        #expect(try journal.entries(in: 851...1_000).allSatisfy(CrashWriterPayload.matches))

        // Appends, rebuilds and exports go on from the horizon.
        try appendCrashWriterEntries(journal, through: 1_010)
        try journal.rebuild()
        #expect(try counts(journal) == CrashWriterPayload.kindCounts(through: 1_010))
        var lines = 0
        #expect(try journal.export { _ in lines += 1 } == 160)
        #expect(lines == 160)
    }

    @Test func aSequenceBelowTheHorizonGetsATypedErrorNamingTheHorizon() throws {
        let fixture = try JournalFixture("compact-below")
        defer { fixture.directory.remove() }
        let journal = try fixture.open(options: manualOptions)
        try appendCrashWriterEntries(journal, through: 300)
        try journal.compact(retention: RetentionPolicy(entryCount: 100))
        let expectations: [(String, () throws -> Void)] = [
            ("entry(at:)", { _ = try journal.entry(at: 5) }),
            ("entries(in:)", { _ = try journal.entries(in: 150...250) }),
            ("withState(asOf:)", { try journal.withState(asOf: 199) { _, _ in } }),
            (
                "rebuild(upTo:into:)",
                {
                    let past = try Environment(directory: fixture.directory.appending("past"))
                    try journal.rebuild(upTo: 100, into: past)
                }
            ),
        ]
        for (question, ask) in expectations {
            do {
                try ask()
                Issue.record("\(question) answered below the horizon")
            } catch let error as JournalError {
                #expect(error.code == .belowHorizon, "\(question): \(error)")
                #expect(error.message.contains("horizon, entry 201"), "\(question): \(error.message)")
            }
        }
        // The state right at the anchor is still there; entries from the horizon are readable.
        let atAnchor = try journal.withState(asOf: 200) { state, _ in try KindCountsProjection.counts(in: state) }
        #expect(atAnchor == CrashWriterPayload.kindCounts(through: 200))
        #expect(try journal.entry(at: 201).map(CrashWriterPayload.matches) == true)
        #expect(try journal.read { try $0.firstSequence } == 201)
    }

    /// A store of `count` entries compacted to its newest `kept`, on a machine that can restart.
    private struct CompactedStore {
        let fixture: JournalFixture
        let boot = ManualBootIdentity()
        let options: JournalOptions
        let journal: Journal

        init(_ label: String, count: UInt64, kept: UInt64, manualOptions: JournalOptions) throws {
            fixture = try JournalFixture(label)
            var options = manualOptions
            options.bootIdentity = boot
            self.options = options
            journal = try fixture.open(options: options)
            try journal.append((1...count).map { CrashWriterPayload.draft(for: $0) })
            try journal.compact(retention: RetentionPolicy(entryCount: kept))
        }
    }

    /// The snapshot pinned when compaction moved the horizon is the recovery point; without
    /// its record (damage a power loss cannot do, or a store from before decision 0014) the
    /// newest checkpoint is, and it is at or after the horizon.
    @Test(arguments: [true, false])
    func aPowerLossAfterCompactionRecoversFromThePinnedSnapshotOrACheckpointAtOrAfterTheHorizon(
        keepsTheRecord: Bool
    ) throws {
        let store = try CompactedStore("compact-power", count: 400, kept: 50, manualOptions: manualOptions)
        let (fixture, boot, options, journal) = (store.fixture, store.boot, store.options, store.journal)
        defer { fixture.directory.remove() }
        try appendCrashWriterEntries(journal, through: 420)
        journal.abandon()
        if !keepsTheRecord { try SyncedSnapshotRecord.remove(in: fixture.directory.appending("store/projections")) }

        boot.restart()
        let reopened = try fixture.open(options: options)
        #expect(
            reopened.openingReport.projections
                == (keepsTheRecord ? .restoredSyncedSnapshot(400) : .restoredCheckpoint(350)))
        #expect(try counts(reopened) == CrashWriterPayload.kindCounts(through: 420))
        #expect(try reopened.verify().isConsistent)
    }

    @Test func aCompactedStoreWithoutAUsableCheckpointIsATypedErrorNotAWrongState() throws {
        let store = try CompactedStore("compact-no-checkpoint", count: 100, kept: 10, manualOptions: manualOptions)
        let (fixture, boot, options, journal) = (store.fixture, store.boot, store.options, store.journal)
        defer { fixture.directory.remove() }
        try journal.close()

        // A change of projection versions would fold from the first entry, which is gone.
        let newVersion = #expect(throws: JournalError.self) { try fixture.open(version: 2, options: options) }
        #expect(newVersion?.code == .belowHorizon)
        #expect(newVersion?.message.contains("horizon, entry 91") == true)

        // A power loss with every checkpoint and the anchor gone leaves nothing to fold the
        // journal onto.
        let reopened = try fixture.open(options: options)
        try appendCrashWriterEntries(reopened, through: 105)
        reopened.abandon()
        try? FileManager.default.removeItem(at: fixture.directory.appending("store/checkpoints"))
        try FileManager.default.removeItem(at: fixture.directory.appending("store/anchor"))
        try SyncedSnapshotRecord.remove(in: fixture.directory.appending("store/projections"))
        boot.restart()
        let lost = #expect(throws: JournalError.self) { try fixture.open(options: options) }
        #expect(lost?.code == .belowHorizon)
    }

    @Test func theArchiveHoldsEveryRemovedEntryOnceAndImportsIntoAStoreEqualToTheOriginal() throws {
        let fixture = try JournalFixture("compact-archive")
        defer { fixture.directory.remove() }
        let archive = fixture.directory.appending("archive.jsonl")
        let journal = try fixture.open(options: manualOptions)
        try appendCrashWriterEntries(journal, through: 250)
        #expect(
            try journal.compact(retention: RetentionPolicy(entryCount: 100), archive: archive).archivedEntries == 150)
        try appendCrashWriterEntries(journal, through: 300)
        #expect(
            try journal.compact(retention: RetentionPolicy(entryCount: 100), archive: archive).archivedEntries == 50)
        // Compacting again with nothing to remove archives nothing more.
        #expect(try journal.compact(retention: RetentionPolicy(entryCount: 100), archive: archive).archivedEntries == 0)

        let rest = fixture.directory.appending("rest.jsonl")
        var restBytes: [UInt8] = []
        try journal.export { restBytes += $0 }
        try Data(restBytes).write(to: rest)
        let whole = try fixture.open(options: manualOptions, subdirectory: "whole")
        #expect(try whole.importEntries(from: archive) == 200)
        #expect(try whole.importEntries(from: rest) == 100)
        #expect(try counts(whole) == counts(journal))
        #expect(try whole.entries(in: 1...300).allSatisfy(CrashWriterPayload.matches))
    }

    @Test func aLineTornByAKillAtTheArchivesEndIsCutOffAndWrittenAgain() throws {
        let fixture = try JournalFixture("compact-torn-archive")
        defer { fixture.directory.remove() }
        let archive = fixture.directory.appending("archive.jsonl")
        let journal = try fixture.open(options: manualOptions)
        try appendCrashWriterEntries(journal, through: 100)
        try journal.compact(retention: RetentionPolicy(entryCount: 80), archive: archive)
        // What a kill in the middle of the next append leaves: half a line.
        let next = try #require(try journal.entry(at: 21))
        let handle = try FileHandle(forWritingTo: archive)
        try handle.seekToEnd()
        try handle.write(contentsOf: Journal.exportLine(for: next).prefix(40))
        try handle.close()

        let report = try journal.compact(retention: RetentionPolicy(entryCount: 50), archive: archive)
        #expect(report.archivedEntries == 30)
        let text = try String(contentsOf: archive, encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        let sequences = try text.split(separator: "\n").map { line in
            try JSONValue(parsing: Array(line.utf8))["sequence"]?.number?.int64Value ?? -1
        }
        #expect(sequences == Array(1...50))
    }

    @Test func appendsCompactByThemselvesOnceTheHistoryPassesALimitByAQuarter() throws {
        let fixture = try JournalFixture("compact-automatic")
        defer { fixture.directory.remove() }
        var options = manualOptions
        options.retention = RetentionPolicy(entryCount: 100)
        let journal = try fixture.open(options: options)
        try appendCrashWriterEntries(journal, through: 125)
        #expect(try journal.horizon() == .start)
        try appendCrashWriterEntries(journal, through: 126)
        #expect(try journal.horizon().firstSequence == 27)
        #expect(try counts(journal) == CrashWriterPayload.kindCounts(through: 126))
        let statistics = try journal.statistics()
        #expect(statistics.horizon.firstSequence == 27)
        #expect(statistics.liveBytes <= statistics.fileBytes)
        // The anchor holds the horizon's state; no checkpoint copy is written for it.
        #expect(statistics.checkpointSequences == [])
        #expect(statistics.anchorSequence == 26)
    }

    @Test func theAgeAndByteLimitsKeepTheNewestEntriesWithinThem() throws {
        let fixture = try JournalFixture("compact-age-bytes")
        defer { fixture.directory.remove() }
        let journal = try fixture.open(options: manualOptions)
        for n in 1...60 {
            try journal.append(note("minute \(n)", n))
            fixture.clock.advance(by: .seconds(60))
        }
        // The clock stands a minute (and a few ticks) after the last entry: ten minutes and a
        // second keep the last ten.
        let byAge = try journal.compact(retention: RetentionPolicy(age: .seconds(601)))
        #expect(byAge.horizon.firstSequence == 51, "\(byAge)")
        let entryBytes = try journal.read { reader in
            try reader.entries(in: 51...60).map { $0.envelope().count }
        }
        let lastFour = entryBytes.suffix(4).reduce(0, +)
        let byBytes = try journal.compact(retention: RetentionPolicy(journalBytes: lastFour))
        #expect(byBytes.horizon.firstSequence == 57, "\(byBytes)")
        #expect(try journal.verify().isConsistent)
    }

    @Test func aProjectionThatNeedsAnEntryKeepsItAndEverythingAfter() throws {
        let fixture = try JournalFixture("compact-pinned")
        defer { fixture.directory.remove() }
        let journal = try Journal(
            directory: fixture.directory.appending("store"),
            projections: [KindCountsProjection(), PinningProjection(pinned: 40)], clock: fixture.clock,
            options: manualOptions, logger: .discarding)
        try appendCrashWriterEntries(journal, through: 100)
        let report = try journal.compact(retention: RetentionPolicy(entryCount: 10))
        #expect(report.horizon.firstSequence == 40)
        #expect(report.keptBecause.contains("pinning still needs entry 40"))
    }

    /// A child that appends, pins synced snapshots and compacts itself (archiving what it
    /// removes) kills itself at seeded commits: of its journal (appends and compactions), or of
    /// its anchor (only inside a compaction); after every other crash the machine also loses
    /// power: what the child wrote to the projections without a sync is damaged and the machine
    /// restarts. After every crash the store opens, verifies from its horizon, its kind counts
    /// are those of every entry ever appended, and the archive continues without a gap or a
    /// repeat up to the horizon.
    @Test func compactionAndPinsInterruptedBySIGKILLOrAPowerLossAtSeededCommitsLeaveAValidStore() async throws {
        let fixture = try JournalFixture("compact-crash")
        defer { fixture.directory.remove() }
        let store = fixture.directory.appending("store")
        let archive = fixture.directory.appending("archive.jsonl")
        let writer = try BuiltProduct("journal-crash-writer")
        var generator = SplitMix64(seed: 20_261_124)
        var lastSeen: UInt64 = 0
        var compactedRounds = 0
        var snapshotRestores = 0
        let roundCount = 16
        var options = manualOptions
        options.compactionArchive = archive
        for round in 0..<roundCount {
            let point = Self.crashPoint(round: round, generator: &generator)
            let child = try writer.start(
                [store.path, String(round), archive.path], addedEnvironment: point.environment)
            #expect(try await child.crashedAtItsPoint(), "round \(round) (\(point)): the child did not crash")
            let journal = try Self.reopen(fixture, afterRound: round, options: options, generator: &generator)
            if case .restoredSyncedSnapshot = journal.openingReport.projections { snapshotRestores += 1 }
            let last = try journal.lastSequence()
            #expect(last >= lastSeen, "round \(round): the journal lost committed entries")
            lastSeen = last
            let horizon = try journal.horizon()
            if horizon.isCompacted { compactedRounds += 1 }
            #expect(
                try journal.entries(in: horizon.firstSequence...max(horizon.firstSequence, last)).allSatisfy(
                    CrashWriterPayload.matches))
            #expect(try counts(journal) == CrashWriterPayload.kindCounts(through: last), "round \(round)")
            let report = try journal.verify()
            #expect(report.isConsistent, "round \(round): \(report.divergences)")
            var expected: UInt64 = 1
            if FileManager.default.fileExists(atPath: archive.path) {
                let text = try String(contentsOf: archive, encoding: .utf8)
                // A kill while the child appended may leave a last line without its newline;
                // the next compaction cuts it off and writes it again.
                var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                lines.removeLast()
                for line in lines {
                    let value = try JSONValue(parsing: Array(line.utf8))
                    let sequence = UInt64(value["sequence"]?.number?.int64Value ?? -1)
                    #expect(sequence == expected, "round \(round): archive line for entry \(sequence)")
                    expected = sequence + 1
                }
            }
            #expect(expected >= horizon.firstSequence, "round \(round): the archive stops before the horizon")
        }
        // Every crash after the first round's lands in a compacted store.
        #expect(compactedRounds >= roundCount - 1, "only \(compactedRounds) crashes left a compacted store")
        #expect(snapshotRestores >= 1, "no power loss reopened a pinned snapshot")
    }

    /// Two processes append to one store, and each compacts it (folding into its anchor) and
    /// pins synced snapshots as it goes; each kills itself at a seeded commit of its journal,
    /// and every other round ends in a simulated power loss. Each time nothing committed is
    /// lost, the counts hold, `verify` passes and the anchor holds the horizon's state: neither
    /// process's fold into the anchor is lost or repeated by the other's.
    @Test func twoProcessesCompactingOneStoreCrashingAtSeededCommitsLeaveAValidStore() async throws {
        let fixture = try JournalFixture("compact-two-processes")
        defer { fixture.directory.remove() }
        let store = fixture.directory.appending("store")
        let writer = try BuiltProduct("journal-crash-writer")
        var generator = SplitMix64(seed: 20_261_127)
        var lastSeen: UInt64 = 0
        var compactedRounds = 0
        for round in 0..<6 {
            // Each child appends what it removes to an archive of its own: two processes
            // appending to one file would interleave their lines.
            let archives = ["a", "b"].map { fixture.directory.appending("archive-\($0)-\(round).jsonl").path }
            // Deep enough into its loop that each child has seen the store compacted, whatever
            // the other did meanwhile: the first compaction comes within about 20 appends.
            let points = archives.map { _ in
                CrashPoint(
                    folderName: "journal", commit: Int.random(in: 60...160, using: &generator),
                    moment: Bool.random(using: &generator) ? .afterCommit : .beforeCommit)
            }
            let children = try zip(archives, points).enumerated().map { index, child in
                try writer.start(
                    [store.path, String(round * 2 + index), child.0], addedEnvironment: child.1.environment)
            }
            for (child, point) in zip(children, points) {
                #expect(try await child.crashedAtItsPoint(), "round \(round) (\(point)): a child did not crash")
            }
            for archive in archives {
                #expect(
                    FileManager.default.fileExists(atPath: archive + ".compacted"),
                    "round \(round): a child never saw its store compacted")
            }
            let journal = try Self.reopen(fixture, afterRound: round, options: manualOptions, generator: &generator)
            let last = try journal.lastSequence()
            #expect(last >= lastSeen, "round \(round): the journal lost committed entries")
            lastSeen = last
            let horizon = try journal.horizon()
            if horizon.isCompacted {
                compactedRounds += 1
                let anchor = try #require(try journal.statistics().anchorSequence, "round \(round): no anchor")
                #expect(anchor >= horizon.anchorSequence, "round \(round): the anchor is behind the horizon")
            }
            #expect(try counts(journal) == CrashWriterPayload.kindCounts(through: last), "round \(round)")
            let report = try journal.verify()
            #expect(report.isConsistent, "round \(round): \(report.divergences)")
            try journal.close()
        }
        #expect(compactedRounds == 6)
    }

    /// Round `round`'s crash point: every third round inside a compaction (a commit of the
    /// anchor, which only a compaction writes), the others at an append or a compaction (a
    /// commit of the journal), deep enough into the child's loop to reach its first compaction.
    private static func crashPoint(round: Int, generator: inout SplitMix64) -> CrashPoint {
        let moment: CrashPoint.Moment = Bool.random(using: &generator) ? .afterCommit : .beforeCommit
        if round % 3 == 2 {
            return CrashPoint(folderName: "anchor", commit: Int.random(in: 1...3, using: &generator), moment: moment)
        }
        return CrashPoint(folderName: "journal", commit: Int.random(in: 20...120, using: &generator), moment: moment)
    }

    /// Opens the store after round `round`'s crashes; odd rounds first simulate a power loss: the
    /// projections' unsynced pages damaged, and another boot than the children's.
    private static func reopen(
        _ fixture: JournalFixture, afterRound round: Int, options: JournalOptions, generator: inout SplitMix64
    ) throws -> Journal {
        var options = options
        if round % 2 == 1 {
            try PowerLossDamage.damageUnsyncedProjections(
                of: fixture.directory.appending("store"), how: generator.next())
            options.bootIdentity = ManualBootIdentity("after-power-loss-\(round)")
        }
        return try fixture.open(options: options)
    }
}

/// A projection that always needs one entry.
private struct PinningProjection: Projection {
    let name = "pinning"
    let version = 1
    let databaseNames: [String] = []
    let pinned: UInt64

    func apply(_ entry: JournalEntry, in context: ProjectionContext) throws {}

    func oldestNeededSequence(in context: ProjectionContext) throws -> UInt64? {
        pinned
    }
}
