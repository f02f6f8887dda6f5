import Determinism
import EventJournal
import Foundation
import LMDBStore
import MobileSync
import SyncTesting
import Synchronization
import Testing

/// A store written by the previous SyncJournal (format 1: journal and projections in one LMDB
/// environment, `<store>/data.mdb`), recorded by `msync` of commit fba2c36 with a sync down, a
/// reSync, local creates and edits, and a sync up: 21 entries. `export.jsonl` and `state.json`
/// are what that build's `journal-replay export` and `state --json` printed for it.
@Suite struct StoreFormatMigrationTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/format-1-store")

    let tool: BuiltProduct
    let directory: TemporaryDirectory

    init() throws {
        tool = try BuiltProduct("journal-replay")
        directory = try TemporaryDirectory("migration")
    }

    private func copyOfFixture() throws -> URL {
        let store = directory.appending("store")
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Self.fixture.appendingPathComponent("data.mdb"), to: store.appendingPathComponent("data.mdb"))
        return store
    }

    @Test func aFormatOneStoreIsConvertedWithItsEntriesAndProjectionsUnchanged() async throws {
        defer { directory.remove() }
        let store = try copyOfFixture()
        let progress = Mutex<[OpeningProgress]>([])
        var options = JournalOptions()
        options.rebuildBatchSize = 5
        options.openingProgress = { step in progress.withLock { $0.append(step) } }
        do {
            let opened = try SyncStore.openExisting(
                directory: store, clock: SystemWallClock(), options: options, logger: .discarding)
            #expect(opened.journal.openingReport.migratedFromFormat == 1)
            #expect(opened.journal.openingReport.projections == .rebuilt)
            #expect(opened.journal.openingReport.foldedEntries == 21)
            let names = try opened.journal.journalEnvironment.read { try $0.databaseNames() }
            #expect(names == ["journal.entries", "journal.meta"])
        }
        #expect(progress.withLock { $0.map(\.folded) } == [5, 10, 15, 20, 21])
        #expect(progress.withLock { $0.allSatisfy { $0.phase == .migrating && $0.total == 21 } })
        #expect(!FileManager.default.fileExists(atPath: store.appendingPathComponent("data.mdb").path))
        #expect(FileManager.default.fileExists(atPath: store.appendingPathComponent("journal/data.mdb").path))

        let export = try await tool.run(["export", store.path])
        #expect(export.status == 0)
        #expect(
            export.standardOutput
                == (try String(contentsOf: Self.fixture.appendingPathComponent("export.jsonl"), encoding: .utf8)))
        let state = try await tool.run(["state", store.path, "--json"])
        #expect(state.status == 0)
        #expect(
            state.standardOutput
                == (try String(contentsOf: Self.fixture.appendingPathComponent("state.json"), encoding: .utf8)))
        let verify = try await tool.run(["verify", store.path])
        #expect(verify.status == 0, "\(verify.standardOutput)\(verify.standardError)")
        let reopened = try SyncStore.openExisting(directory: store, clock: SystemWallClock(), logger: .discarding)
        #expect(reopened.journal.openingReport.migratedFromFormat == nil)
        #expect(reopened.journal.openingReport.projections == .trusted)
    }

    /// Issue 29: a read verb reports a format-1 store and converts nothing; a writing verb
    /// converts it, showing the conversion's progress, and accepts the journal folder.
    @Test func readVerbsReportAnOldFormatAndAWritingVerbConvertsItShowingProgress() async throws {
        defer { directory.remove() }
        let store = try copyOfFixture()
        let original = try Data(contentsOf: store.appendingPathComponent("data.mdb"))
        let info = try await tool.run(["info", store.appendingPathComponent("journal").path])
        #expect(info.status == 3, "\(info.standardError)")
        #expect(info.standardError.contains("format 1"))
        #expect(info.standardError.split(separator: "\n").count == 1)
        #expect(try Data(contentsOf: store.appendingPathComponent("data.mdb")) == original)
        #expect(!FileManager.default.fileExists(atPath: store.appendingPathComponent("journal").path))
        let rebuild = try await tool.run(["rebuild", store.appendingPathComponent("journal").path])
        #expect(rebuild.status == 0, "\(rebuild.standardError)")
        #expect(rebuild.standardError.contains("migrating the store: 100% (21/21)"))
        let again = try await tool.run(["info", store.path])
        #expect(again.status == 0)
        #expect(again.standardOutput.contains("format version: \(Journal.formatVersion)"))
    }
}
