import Determinism
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import SmartStoreImport
import Soups
import SyncTesting
import Testing

/// Files that are not SmartStore databases, rows that do not parse, and a store that is not
/// new: each a typed error naming the table and row, with nothing written.
@Suite struct SmartStoreImportErrorTests {
    /// Writes the sample, lets `damage` change it, and returns the error reading it gives.
    private func readingError(_ damage: (SmartStoreFixture, URL) throws -> Void) throws -> SmartStoreImportError? {
        let directory = try TemporaryDirectory("smartstore-import-errors")
        defer { directory.remove() }
        let sample = try SmartStoreSample(url: directory.appending("smartstore.db"))
        let fixture = try SmartStoreFixture(reopening: sample.url)
        try damage(fixture, sample.url)
        fixture.close()
        do {
            _ = try SmartStoreDatabase(contentsOf: sample.url)
            return nil
        } catch {
            return error
        }
    }

    @Test func aFileThatIsNotAnSQLiteDatabaseIsNotADatabase() throws {
        let directory = try TemporaryDirectory("smartstore-import-noise")
        defer { directory.remove() }
        let url = directory.appending("noise.db")
        try Data(String(repeating: "not a database, maybe an encrypted one. ", count: 200).utf8).write(to: url)
        let noise = #expect(throws: SmartStoreImportError.self) { try SmartStoreDatabase(contentsOf: url) }
        #expect(noise?.code == .notADatabase)
        #expect(noise?.message.contains("sqlcipher_export") == true)
        let missing = #expect(throws: SmartStoreImportError.self) {
            try SmartStoreDatabase(contentsOf: directory.appending("missing.db"))
        }
        #expect(missing?.code == .unreadable)
    }

    @Test func anSQLiteDatabaseWithoutSmartStoresTablesIsNotASmartStore() throws {
        let error = try readingError { fixture, _ in try fixture.execute("DROP TABLE soup_attrs") }
        #expect(error?.code == .notASmartStore)
    }

    @Test func aRecordThatIsNotJSONNamesItsTableAndRow() throws {
        let error = try readingError { fixture, _ in
            // `contacts`: SQLite refuses text that is not JSON in a table with a json1 index.
            try fixture.setRawSoupColumn(table: "TABLE_2", entryId: 1, to: "{\"Id\": ")
        }
        #expect(error?.code == .malformedRecord)
        #expect(error?.table == "TABLE_2")
        #expect(error?.row == 1)
        #expect(error?.message.contains("record 1 of TABLE_2") == true, "\(String(describing: error))")
    }

    @Test func aRecordThatIsNotAnObjectOrHasNoDateIsMalformed() throws {
        let array = try readingError { fixture, _ in
            try fixture.setRawSoupColumn(table: "TABLE_1", entryId: 2, to: "[1]")
        }
        #expect(array?.code == .malformedRecord)
        #expect(array?.table == "TABLE_1")
        #expect(array?.row == 2)
        let undated = try readingError { fixture, _ in
            try fixture.execute("UPDATE TABLE_1 SET lastModified = NULL, soup = '{}' WHERE id = 3")
        }
        #expect(undated?.code == .malformedRecord)
        #expect(undated?.row == 3)
    }

    @Test func aSyncThatDoesNotParseNamesSyncsSoupsTableAndRow() throws {
        let error = try readingError { fixture, _ in
            try fixture.setRawSoupColumn(table: "TABLE_3", entryId: 2, to: #"{"type":"sideways"}"#)
        }
        #expect(error?.code == .malformedSync)
        #expect(error?.table == "TABLE_3")
        #expect(error?.row == 2)
    }

    @Test func anUnknownIndexTypeOrExternalStorageIsRefused() throws {
        let unknown = try readingError { fixture, _ in
            try fixture.execute("UPDATE soup_index_map SET columnType = 'geo' WHERE path = 'Name'")
        }
        #expect(unknown?.code == .malformedSoup)
        #expect(unknown?.table == "soup_index_map")
        let external = try readingError { fixture, _ in
            try fixture.execute(
                "ALTER TABLE soup_attrs ADD COLUMN externalStorage INTEGER; "
                    + "UPDATE soup_attrs SET externalStorage = 1 WHERE soupName = 'contacts'")
        }
        #expect(external?.code == .unsupported)
        #expect(external?.row == 2)
    }

    @Test func aStoreWithEntriesIsRefusedAndKeepsThemUnchanged() throws {
        let directory = try TemporaryDirectory("smartstore-import-occupied")
        defer { directory.remove() }
        let sample = try SmartStoreSample(url: directory.appending("smartstore.db"))
        let database = try SmartStoreDatabase(contentsOf: sample.url)
        let store = try SyncStore(
            directory: directory.appending("store"), clock: SmartStoreImportTests.clock, logger: .discarding)
        try store.soups.registerSoup("mine", indexSpecs: [IndexSpec(path: "Id", type: .string)])
        let before = try store.journal.read { try $0.lastSequence }

        let refused = #expect(throws: SmartStoreImportError.self) { try store.importSmartStore(database) }
        #expect(refused?.code == .storeNotEmpty)
        #expect(try store.journal.read { try $0.lastSequence } == before)
        #expect(try store.soups.soupNames() == ["mine"])
    }
}
