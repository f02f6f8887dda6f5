import Determinism
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import SmartStoreImport
import Soups
import SyncTesting
import Testing

/// Importing SmartStore database files built from SmartStore's schema: what the store holds
/// after, where ids continue, and the errors that write nothing.
@Suite struct SmartStoreImportTests {
    static let clock = ManualWallClock(WallTime(millisecondsSinceEpoch: 1_800_000_000_000), tick: .milliseconds(1))

    /// Writes the sample, imports it into a new store and runs `body`; removes everything after.
    static func withImport<T>(
        extraAccounts: Int = 0, _ body: (SmartStoreSample, SmartStoreDatabase, SyncStore) throws -> T
    ) throws -> T {
        let directory = try TemporaryDirectory("smartstore-import")
        defer { directory.remove() }
        let sample = try SmartStoreSample(url: directory.appending("smartstore.db"), extraAccounts: extraAccounts)
        let database = try SmartStoreDatabase(contentsOf: sample.url)
        let store = try SyncStore(
            directory: directory.appending("store"), clock: clock, idGenerator: IncrementingIDGenerator(),
            logger: .discarding)
        try store.importSmartStore(database)
        let result = try body(sample, database, store)
        let report = try store.journal.verify()
        #expect(report.isConsistent, "verify: \(report.divergences)")
        return result
    }

    @Test func soupsIndexSpecsRecordsEntryIdsAndDatesEqualTheFile() throws {
        try Self.withImport { _, database, store in
            #expect(try store.soups.soupNames() == ["accounts", "contacts", "notes"])
            #expect(try store.soups.indexSpecs(of: "accounts") == SmartStoreSample.accountSpecs)
            #expect(try store.soups.indexSpecs(of: "contacts") == SmartStoreSample.contactSpecs)
            #expect(try store.soups.indexSpecs(of: "notes") == SmartStoreSample.noteSpecs)
            for soup in database.soups {
                let stored = try store.soups.query(.all(soup.name, orderPath: "_soupEntryId", pageSize: 1_000))
                #expect(stored == soup.records.map(\.json))
                let dates = try store.soups.query(
                    .smart(
                        sql: "SELECT {\(soup.name):_soupEntryId}, {\(soup.name):_soupCreatedDate}, "
                            + "{\(soup.name):_soupLastModifiedDate} FROM {\(soup.name)} "
                            + "ORDER BY {\(soup.name):_soupEntryId}",
                        pageSize: 1_000), args: [])
                let expected = soup.records.map { record -> JSONValue in
                    [
                        .number(JSONNumber(record.entryId)), .number(JSONNumber(record.createdDate)),
                        .number(JSONNumber(record.lastModifiedDate)),
                    ]
                }
                #expect(dates == expected)
            }
            let accounts = try #require(database.soups.first)
            #expect(accounts.records.map(\.entryId) == [1, 2, 3, 4])
            #expect(accounts.records.map(\.createdDate) == [1_000, 1_100, 1_200, 6_000])
            #expect(accounts.records[1].json["__last_error__"] == #"{"message":"UNABLE_TO_LOCK_ROW"}"#)
        }
    }

    @Test func everyIndexTypeAnswersQueriesAsSmartStoreWould() throws {
        try Self.withImport { _, _, store in
            let byCity = try store.soups.query(.exact("accounts", path: "BillingAddress.City", value: "Lyon"))
            #expect(byCity.map { $0["Id"] } == [.string(SmartStoreSample.clean)])
            let matched = try store.soups.query(.match("accounts", path: "Name", expression: "cafe"))
            #expect(matched.map { $0["Id"] } == [.string(SmartStoreSample.clean)])
            let big = try store.soups.query(.range("accounts", path: "NumberOfEmployees", from: 20, to: nil))
            #expect(big.map { $0["Id"] } == [.string(SmartStoreSample.updated)])
            let revenue = try store.soups.query(.range("accounts", path: "AnnualRevenue", from: 1000.0, to: 2000.0))
            #expect(revenue.count == 1)
            let dirty = try store.soups.query(.exact("accounts", path: "__local__", value: "true", pageSize: 10))
            #expect(dirty.count == 3)
        }
    }

    @Test func dirtyRecordsKeepTheirFlagsAndLastError() throws {
        try Self.withImport { _, database, store in
            let dirty = try store.soups.dirtyRecords("accounts")
            #expect(
                dirty.compactMap { $0["Id"]?.string } == [
                    SmartStoreSample.updated, SmartStoreSample.deleted, "local_17",
                ])
            #expect(dirty.first?["__locally_updated__"] == true)
            #expect(dirty.dropFirst().first?["__locally_deleted__"] == true)
            #expect(dirty.last?["__locally_created__"] == true)
            #expect(database.dirtyRecordCount == 3)
            #expect(try store.soups.dirtyRecords("contacts").isEmpty)
            let history = try RecordHistory(journal: store.journal, soup: "accounts", id: SmartStoreSample.updated)
            #expect(history.events.map(\.action) == ["imported from SmartStore"])
            #expect(history.events.first?.record == dirty.first)
        }
    }

    @Test func syncsKeepIdsNamesTargetsOptionsAndWatermarksAndARunningOneIsStopped() throws {
        try Self.withImport { _, database, store in
            let states = try store.syncStates()
            #expect(states == database.syncs)
            let down = try #require(try store.syncState(named: "accountsDown"))
            #expect(down.id == 1)
            #expect(down.status == .stopped)
            #expect(down.maxTimeStamp == SmartStoreSample.watermark)
            #expect(down.options.mergeMode == .leaveIfChanged)
            #expect(down.syncDownTarget != nil)
            let up = try #require(try store.syncState(named: "accountsUp"))
            #expect(up.id == 2)
            #expect(up.status == .done)
            #expect(up.options.fieldlist == ["Name"])
            #expect(up.type == .syncUp)
        }
    }

    @Test func syncsOfEveryTargetTypeAndStatusAreKeptAndOnlyRunningOnesChange() throws {
        let directory = try TemporaryDirectory("smartstore-import-targets")
        defer { directory.remove() }
        let sample = try SmartStoreSample(url: directory.appending("smartstore.db"), everyTarget: true)
        let database = try SmartStoreDatabase(contentsOf: sample.url)
        let store = try SyncStore(directory: directory.appending("store"), clock: Self.clock, logger: .discarding)
        try store.importSmartStore(database)

        let states = try store.syncStates()
        #expect(states == database.syncs)
        #expect(states.map(\.id) == Array(1...14))
        #expect(
            states.map(\.status.rawValue) == [
                "STOPPED", "DONE", "NEW", "FAILED", "STOPPED", "DONE", "DONE", "STOPPED", "DONE", "STOPPED", "NEW",
                "FAILED", "NEW", "STOPPED",
            ])
        #expect(states[8].syncDownTarget?.json["type"] == "parent_children")
        #expect(states[9].syncDownTarget?.json["type"] == "briefcase")
        for (state, json) in zip(states.dropFirst(2), SmartStoreSample.otherSyncs) {
            var members = json.object ?? [:]
            members["_soupEntryId"] = .number(JSONNumber(state.id))
            var expected = try SyncState(json: .object(members))
            expected.stopAfterInterruptedRun()
            #expect(state == expected)
        }
        #expect(states[3].error == "the server said no")
        #expect(database.nextSyncId == 15)
    }

    @Test func anEncryptedStoreTakesTheImportAndHoldsNoRecordInTheClear() throws {
        let directory = try TemporaryDirectory("smartstore-import-encrypted")
        defer { directory.remove() }
        let sample = try SmartStoreSample(url: directory.appending("smartstore.db"))
        let database = try SmartStoreDatabase(contentsOf: sample.url)
        var options = JournalOptions()
        options.encryption = try StoreKey(bytes: [UInt8](repeating: 7, count: 32))
        let store = try SyncStore(
            directory: directory.appending("store"), clock: Self.clock, options: options, logger: .discarding)
        try store.importSmartStore(database)

        let accounts = try store.soups.query(.all("accounts", orderPath: "_soupEntryId", pageSize: 100))
        #expect(accounts == database.soups.first?.records.map(\.json))
        #expect(try store.soups.dirtyRecords("accounts").count == 3)
        let journal = try Data(contentsOf: directory.appending("store/journal/data.mdb"))
        #expect(!journal.isEmpty)
        #expect(journal.range(of: Data("Renamed locally".utf8)) == nil)
        #expect(try store.journal.verify().isConsistent)
    }

    @Test func entryAndSyncIdsContinueAfterTheHighestSmartStoreHandedOut() async throws {
        let directory = try TemporaryDirectory("smartstore-import-ids")
        defer { directory.remove() }
        let sample = try SmartStoreSample(url: directory.appending("smartstore.db"))
        let database = try SmartStoreDatabase(contentsOf: sample.url)
        let store = try SyncStore(
            directory: directory.appending("store"), clock: Self.clock, idGenerator: IncrementingIDGenerator(),
            logger: .discarding)
        try store.importSmartStore(database)

        #expect(database.nextEntryId == sample.deletedEntryId + 1)
        #expect(database.nextSyncId == 3)
        let created = try store.soups.createLocally("contacts", ["LastName": "Martin"])
        #expect(created[SoupStore.entryIdField]?.number?.int64Value == sample.deletedEntryId + 1)
        let manager = try SyncManager(store: store, client: nil, clock: Self.clock, logger: .discarding)
        let sync = try await manager.createSyncDown(
            target: try SyncDownTargetDescriptor(.soql(query: SmartStoreSample.soqlQuery)), soupName: "contacts")
        #expect(sync.id == 3)
    }

    @Test func tenThousandRecordsAreImportedWithProgressReported() throws {
        let directory = try TemporaryDirectory("smartstore-progress")
        defer { directory.remove() }
        let sample = try SmartStoreSample(url: directory.appending("smartstore.db"), extraAccounts: 10_000)
        let reports = ProgressLog()
        let database = try SmartStoreDatabase(contentsOf: sample.url) { reports.append($0) }
        #expect(database.recordCount == 10_007)
        let reading = reports.all.filter { $0.phase == .reading }
        #expect(reading.count >= 10)
        #expect(reading.last?.done == reading.last?.total)

        let store = try SyncStore(directory: directory.appending("store"), clock: Self.clock, logger: .discarding)
        try store.importSmartStore(database) { reports.append($0) }
        let writing = reports.all.filter { $0.phase == .writing }
        #expect(writing.last == SmartStoreImportProgress(phase: .writing, done: 10_007, total: 10_007))
        // Then the accounts, past the threshold, are compressed in batches (decision 0033).
        let compressing = reports.all.filter { $0.phase == .compressing }
        #expect(compressing.map(\.done) == [2_000, 4_000, 6_000, 8_000, 10_000, 10_004])
        #expect(compressing.allSatisfy { $0.total == 10_004 })
        #expect(reports.all.last?.phase == .compressing)
        #expect(try store.soups.count(.all("accounts")) == 10_004)
        #expect(try store.soups.query(.exact("accounts", path: "Id", value: "Extra 9999")).count == 1)
        #expect(try store.journal.verify().isConsistent)
    }
}
