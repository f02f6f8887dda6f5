import Determinism
import EventJournal
import Foundation
import SyncTesting
import Testing

/// A compacted store opened by a build whose projections changed version: it cannot rebuild,
/// so it migrates its live projections and every checkpoint in place (decision 0010).
@Suite struct ProjectionMigrationTests {
    private let boot = ManualBootIdentity()

    private var options: JournalOptions {
        var options = JournalOptions()
        options.retention = .unlimited
        options.compactionBatchSize = 7
        options.bootIdentity = boot
        options.checkpoints.pinsSyncedSnapshots = true
        return options
    }

    /// 400 entries by version 1, compacted to the newest 50 (horizon 351, checkpoint at 350).
    private func compactedStore(_ label: String) throws -> JournalFixture {
        let fixture = try JournalFixture(label)
        let journal = try fixture.open(options: options)
        try journal.append((1...400).map { CrashWriterPayload.draft(for: $0) })
        try journal.compact(retention: RetentionPolicy(entryCount: 50))
        try journal.close()
        return fixture
    }

    private func counts(_ journal: Journal) throws -> [String: UInt64] {
        try journal.read { try KindCountsProjection.counts(in: $0) }
    }

    private func migrated(_ counts: [String: UInt64]) -> [String: UInt64] {
        counts.merging([KindCountsProjection.migrationMarker(from: 1): 1]) { $1 }
    }

    @Test func aCompactedStoreOpenedByANewVersionMigratesInPlaceAndKeepsItsState() throws {
        let fixture = try compactedStore("migrate-live")
        defer { fixture.directory.remove() }

        let journal = try fixture.open(version: 2, migratableVersions: [1], options: options)
        #expect(journal.openingReport.migratedProjectionsFrom == "kind-counts@1")
        #expect(journal.openingReport.projections == .trusted)
        #expect(try counts(journal) == migrated(CrashWriterPayload.kindCounts(through: 400)))
        // Every state from the horizon on is folded from a checkpoint that was migrated too.
        let atCheckpoint = try journal.withState(asOf: 380) { state, _ in try KindCountsProjection.counts(in: state) }
        #expect(atCheckpoint == migrated(CrashWriterPayload.kindCounts(through: 380)))
        #expect(try journal.verify().isConsistent)
        try journal.close()

        // Migrated once: the next open trusts the state as it is.
        let again = try fixture.open(version: 2, migratableVersions: [1], options: options)
        #expect(again.openingReport.migratedProjectionsFrom == nil)
        #expect(try counts(again) == migrated(CrashWriterPayload.kindCounts(through: 400)))
    }

    /// The migration removes the snapshot record (it writes without a pin); the first write
    /// after it pins the migrated state, which a power loss then reopens. Without that record,
    /// the migrated checkpoint is the recovery point.
    @Test(arguments: [true, false])
    func aPowerLossAfterTheMigrationRecoversFromTheMigratedSnapshotOrAMigratedCheckpoint(keepsTheRecord: Bool)
        throws
    {
        let fixture = try compactedStore("migrate-power")
        defer { fixture.directory.remove() }
        let journal = try fixture.open(version: 2, migratableVersions: [1], options: options)
        try journal.append((401...420).map { CrashWriterPayload.draft(for: $0) })
        journal.abandon()
        if !keepsTheRecord { try SyncedSnapshotRecord.remove(in: fixture.directory.appending("store/projections")) }

        boot.restart()
        let reopened = try fixture.open(version: 2, migratableVersions: [1], options: options)
        #expect(
            reopened.openingReport.projections
                == (keepsTheRecord ? .restoredSyncedSnapshot(400) : .restoredCheckpoint(350)))
        #expect(try counts(reopened) == migrated(CrashWriterPayload.kindCounts(through: 420)))
    }

    @Test func aPowerLossBeforeTheUpgradeMigratesTheCheckpointThenRestoresIt() throws {
        let fixture = try compactedStore("migrate-untrusted")
        defer { fixture.directory.remove() }
        let old = try fixture.open(options: options)
        try old.append((401...420).map { CrashWriterPayload.draft(for: $0) })
        old.abandon()

        boot.restart()
        let reopened = try fixture.open(version: 2, migratableVersions: [1], options: options)
        #expect(reopened.openingReport.projections == .restoredCheckpoint(350))
        #expect(try counts(reopened) == migrated(CrashWriterPayload.kindCounts(through: 420)))
    }

    @Test func aStoreWithItsWholeHistoryRebuildsInsteadOfMigrating() throws {
        let fixture = try JournalFixture("migrate-whole")
        defer { fixture.directory.remove() }
        let journal = try fixture.open(options: options)
        try journal.append((1...40).map { CrashWriterPayload.draft(for: $0) })
        try journal.close()

        let reopened = try fixture.open(version: 2, migratableVersions: [1], options: options)
        #expect(reopened.openingReport.projections == .rebuilt)
        #expect(reopened.openingReport.migratedProjectionsFrom == nil)
        #expect(try counts(reopened) == CrashWriterPayload.kindCounts(through: 40))
    }

    @Test func aVersionWithoutAMigrationStillRefusesACompactedStore() throws {
        let fixture = try compactedStore("migrate-none")
        defer { fixture.directory.remove() }

        let refused = #expect(throws: JournalError.self) {
            try fixture.open(version: 3, migratableVersions: [2], options: options)
        }
        #expect(refused?.code == .belowHorizon)
        // Nothing changed: the version that wrote it still opens it as it was.
        let journal = try fixture.open(options: options)
        #expect(try counts(journal) == CrashWriterPayload.kindCounts(through: 400))
    }
}
