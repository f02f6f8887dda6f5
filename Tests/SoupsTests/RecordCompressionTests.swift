import EventJournal
import Foundation
import LMDBStore
import LosslessJSON
import SyncTesting
import Testing

@testable import Soups

/// Record values compressed with a dictionary per soup (decision 0030): journaled once a soup
/// crosses the threshold, read back identical everywhere, rebuilt exactly, and damage reported.
@Suite struct RecordCompressionTests {
    private static let threshold = SoupStore.compressionThresholdCount
    private static let key = try! StoreKey(bytes: [UInt8](repeating: 0x4C, count: StoreKey.byteCount))

    /// An org-shaped account record: what the dictionary learns is what such records share.
    private static func account(_ number: Int) -> JSONValue {
        let id = "001" + String(repeating: "0", count: 9 - String(number).count) + String(number) + "AAA"
        return [
            "Id": .string(id),
            "Name": .string("Account \(number) of the \(["Blue", "Red", "Green"][number % 3]) group"),
            "Industry": .string(["Energy", "Retail", "Finance", "Media"][number % 4]),
            "BillingCity": .string(["Paris", "Lyon", "Nantes"][number % 3]),
            "NumberOfEmployees": .number(JSONNumber(Int64(number * 7))),
            "LastModifiedDate": .string("2026-11-24T08:07:00.000+0000"),
            "attributes": ["type": "Account", "url": .string("/services/data/v66.0/sobjects/Account/\(id)")],
        ]
    }

    private static let specs = [IndexSpec(path: "Id", type: .string), IndexSpec(path: "Industry", type: .string)]

    /// A store with one soup of `count` accounts, created in batches of 250.
    private static func filledStore(_ count: Int, encryption: StoreKey? = nil) throws -> SoupFixture {
        let fixture = try SoupFixture("soups-compression", encryption: encryption)
        try fixture.store.registerSoup("accounts", indexSpecs: specs)
        var created = 0
        while created < count {
            let batch = min(250, count - created)
            try fixture.store.create("accounts", (created..<created + batch).map(account))
            created += batch
        }
        return fixture
    }

    /// The stored values of `soups.records`, as LMDB hands them out (after any seal is opened).
    private static func storedValues(_ fixture: SoupFixture) throws -> [[UInt8]] {
        try fixture.projectionState()["soups.records", default: [:]].values.map { $0 }
    }

    @Test(arguments: [false, true])
    func valuesRoundTripCompressedOnPlaintextAndEncryptedStores(encrypted: Bool) throws {
        let fixture = try Self.filledStore(Self.threshold + 250, encryption: encrypted ? Self.key : nil)
        defer { fixture.remove() }
        let values = try Self.storedValues(fixture)
        #expect(values.count == Self.threshold + 250)
        #expect(values.allSatisfy { $0.first == StoredRecordValue.compressedTag })
        let all = try fixture.store.query(.all("accounts", pageSize: Self.threshold + 250))
        #expect(all.count == Self.threshold + 250)
        for record in all.prefix(50) + all.suffix(50) {
            let number = Int(try #require(record["NumberOfEmployees"]?.number?.int64Value)) / 7
            guard case .object(let fields) = record else {
                Issue.record("not an object")
                continue
            }
            #expect(JSONValue.object(fields.filter { !$0.key.hasPrefix("_") }) == Self.account(number))
        }
        // Lookups, index queries and Smart SQL open the compressed values too.
        let id = try #require(all[10].entryId)
        #expect(try fixture.store.retrieve("accounts", ids: [id]) == [all[10]])
        #expect(try fixture.store.query(.exact("accounts", path: "Id", value: all[10]["Id"]!)) == [all[10]])
        let sql = "SELECT {accounts:Name} FROM {accounts} WHERE {accounts:_soupEntryId} = \(id)"
        #expect(try fixture.store.query(.smart(sql: sql)) == [[all[10]["Name"]!]])
        let soup = try fixture.store.query(
            .smart(sql: "SELECT {accounts:_soup} FROM {accounts} WHERE {accounts:_soupEntryId} = \(id)"))
        #expect(soup == [[all[10]]])
    }

    @Test func aSoupCrossingTheThresholdJournalsExactlyOneDictionaryAndReadsBackIdentical() throws {
        let fixture = try Self.filledStore(Self.threshold - 1)
        defer { fixture.remove() }
        #expect(try fixture.journal.count(of: SoupEntryKind.dictionary.kind) == 0)
        let before = try fixture.store.query(.all("accounts", pageSize: Self.threshold))
        #expect(try Self.storedValues(fixture).allSatisfy { $0.first == UInt8(ascii: "{") })

        try fixture.store.create("accounts", Self.account(Self.threshold))
        #expect(try fixture.journal.count(of: SoupEntryKind.dictionary.kind) == 1)
        try fixture.store.create("accounts", (Self.threshold + 1..<Self.threshold + 300).map(Self.account))
        #expect(try fixture.journal.count(of: SoupEntryKind.dictionary.kind) == 1)

        let after = try fixture.store.query(.all("accounts", pageSize: Self.threshold + 300))
        #expect(Array(after.prefix(before.count)) == before)
        let values = try Self.storedValues(fixture)
        #expect(values.allSatisfy { $0.first == StoredRecordValue.compressedTag })
        let rawBytes = after.reduce(0) { $0 + $1.serialized().count }
        let storedBytes = values.reduce(0) { $0 + $1.count }
        #expect(storedBytes * 2 < rawBytes, "stored \(storedBytes) bytes for \(rawBytes) bytes of JSON")

        // An update and a delete after compression keep working.
        let changed = Self.setting(after[5], ["Name": "Renamed"])
        let updated = try fixture.store.upsert("accounts", [changed])
        #expect(try fixture.store.retrieve("accounts", ids: [after[5].entryId!]) == updated)
        try fixture.store.delete("accounts", ids: [after[6].entryId!])
        #expect(try fixture.store.retrieve("accounts", ids: [after[6].entryId!]).isEmpty)
    }

    @Test(arguments: [false, true])
    func aRebuildFromTheJournalEqualsTheLiveProjectionsAfterCompression(encrypted: Bool) throws {
        let fixture = try Self.filledStore(Self.threshold + 100, encryption: encrypted ? Self.key : nil)
        defer { fixture.remove() }
        #expect(try fixture.journal.count(of: SoupEntryKind.dictionary.kind) == 1)
        #expect(try fixture.rebuildMatches())
    }

    @Test func dirtyRecordsKeepTheirBaseAsJSONAfterCompression() throws {
        let fixture = try Self.filledStore(Self.threshold)
        defer { fixture.remove() }
        try fixture.store.alterSoup("accounts", indexSpecs: Self.specs, reIndex: false)
        let first = try #require(try fixture.store.query(.all("accounts", pageSize: 1)).first)
        let local = Self.setting(
            first, ["Name": "Changed locally", "__local__": true, "__locally_updated__": true])
        _ = try fixture.store.upsert("accounts", [local])
        #expect(try fixture.store.retrieve("accounts", ids: [first.entryId!]).first?["Name"] == "Changed locally")
        #expect(try fixture.rebuildMatches())
    }

    @Test func anExportedJournalWithADictionaryImportsToTheSameState() throws {
        let fixture = try Self.filledStore(Self.threshold + 10)
        defer { fixture.remove() }
        var lines: [[UInt8]] = []
        _ = try fixture.journal.export { lines.append($0) }
        let file = fixture.directory.appending("export.jsonl")
        try Data(lines.flatMap { $0 + [UInt8(ascii: "\n")] }).write(to: file)

        let copy = try SoupFixture("soups-compression-copy")
        defer { copy.remove() }
        try copy.journal.importEntries(from: file)
        #expect(try copy.journal.count(of: SoupEntryKind.dictionary.kind) == 1)
        #expect(try copy.projectionState() == fixture.projectionState())
        #expect(
            try copy.store.query(.all("accounts", pageSize: Self.threshold + 10))
                == fixture.store.query(.all("accounts", pageSize: Self.threshold + 10)))
        var copiedLines: [[UInt8]] = []
        _ = try copy.journal.export { copiedLines.append($0) }
        #expect(copiedLines == lines)
    }

    @Test func aVersionThreeStoreOfRawValuesReadsMigratesAndCompressesLater() throws {
        let fixture = try Self.filledStore(300)
        defer { fixture.remove() }
        let before = try fixture.store.query(.all("accounts", pageSize: 300))
        try fixture.journal.compact(retention: RetentionPolicy(entryCount: 1))
        try fixture.journal.close()
        try Self.withProjections(of: fixture) { transaction, _, fold in
            let signature = String(
                decoding: try #require(try transaction.get(fold, key: Array("projections".utf8))), as: UTF8.self)
            #expect(signature.contains("soups@4"))
            try transaction.put(
                fold, key: Array("projections".utf8),
                value: Array(signature.replacingOccurrences(of: "soups@4", with: "soups@3").utf8))
        }
        let reopened = try SoupFixture.reopen(fixture, encryption: nil)
        #expect(reopened.journal.openingReport.migratedProjectionsFrom?.contains("soups@3") == true)
        #expect(try reopened.store.query(.all("accounts", pageSize: 300)) == before)
        try reopened.store.create("accounts", (300..<Self.threshold + 1).map(Self.account))
        #expect(try reopened.journal.count(of: SoupEntryKind.dictionary.kind) == 1)
        #expect(Array(try reopened.store.query(.all("accounts", pageSize: 300))) == before)
    }

    @Test func aLargeSoupIsCompressedABatchPerWriteAndTheRestWithProgress() throws {
        let fixture = try SoupFixture("soups-compression", encryption: nil)
        defer { fixture.remove() }
        try fixture.store.registerSoup("accounts", indexSpecs: Self.specs)
        let count = SoupStore.recompressionEntryCountMax * 2 + 500
        try fixture.store.create("accounts", (0..<count).map(Self.account))
        let before = try fixture.store.query(.all("accounts", pageSize: count))
        // The write that crossed the threshold journaled the dictionary and one batch only.
        #expect(try fixture.journal.count(of: SoupEntryKind.dictionary.kind) == 1)
        #expect(try fixture.journal.count(of: SoupEntryKind.recompressed.kind) == 1)
        #expect(try Self.rawValueCount(fixture) == count - SoupStore.recompressionEntryCountMax)
        // Each later write journals one more.
        _ = try fixture.store.upsert("accounts", [Self.setting(before[3], ["Name": "Renamed"])])
        #expect(try fixture.journal.count(of: SoupEntryKind.recompressed.kind) == 2)
        #expect(try Self.rawValueCount(fixture) == 500)

        var reports: [[Int]] = []
        try fixture.store.compressRecords { reports.append([$0, $1]) }
        #expect(reports == [[500, 500]])
        #expect(try Self.rawValueCount(fixture) == 0)
        #expect(try fixture.store.read { try $0.pendingRecompression(1) } == nil)
        let after = try fixture.store.query(.all("accounts", pageSize: count))
        #expect(after.count == before.count)
        #expect(Array(after[4...]) == Array(before[4...]))
        #expect(try fixture.rebuildMatches())
        // Nothing is left: no write journals another batch.
        try fixture.store.compressRecords { reports.append([$0, $1]) }
        _ = try fixture.store.upsert("accounts", [Self.setting(before[7], ["Name": "Renamed too"])])
        #expect(try fixture.journal.count(of: SoupEntryKind.recompressed.kind) == 3)
        #expect(reports.count == 1)
    }

    @Test func aVersionThreeStoreWithALargeSoupMigratesThenCompressesWithProgress() throws {
        let count = SoupStore.recompressionEntryCountMax + 700
        let fixture = try Self.filledStore(count)
        defer { fixture.remove() }
        try fixture.store.compressRecords()
        let before = try fixture.store.query(.all("accounts", pageSize: count))
        let exact = try fixture.store.query(.exact("accounts", path: "Industry", value: "Retail", pageSize: count))
        try fixture.journal.compact(retention: RetentionPolicy(entryCount: 1))
        try fixture.journal.close()
        // What a build before record compression left: every value JSON, no dictionary, soups@3.
        try Self.withProjections(of: fixture) { transaction, databases, fold in
            let dictionaryBytes = try #require(
                try transaction.get(databases.dictionaries, key: SoupDatabases.dictionaryKey(1, 1)))
            let dictionary = try #require(RecordDictionary(id: 1, bytes: dictionaryBytes))
            var values: [([UInt8], [UInt8])] = []
            try transaction.withCursor(databases.records) { cursor in
                try cursor.forEach { key, value in
                    values.append((key, value))
                    return true
                }
            }
            for (key, value) in values {
                try transaction.put(
                    databases.records, key: key, value: try StoredRecordValue.json(of: value) { _ in dictionary })
            }
            try transaction.clear(databases.dictionaries)
            let signature = String(
                decoding: try #require(try transaction.get(fold, key: Array("projections".utf8))), as: UTF8.self)
            try transaction.put(
                fold, key: Array("projections".utf8),
                value: Array(signature.replacingOccurrences(of: "soups@4", with: "soups@3").utf8))
        }
        let reopened = try SoupFixture.reopen(fixture, encryption: nil)
        defer { reopened.remove() }
        #expect(reopened.journal.openingReport.migratedProjectionsFrom?.contains("soups@3") == true)
        #expect(try Self.rawValueCount(reopened) == count)
        #expect(try reopened.store.query(.all("accounts", pageSize: count)) == before)

        var reports: [[Int]] = []
        try reopened.store.compressRecords { reports.append([$0, $1]) }
        #expect(reports == [[SoupStore.recompressionEntryCountMax, count], [count, count]])
        #expect(try Self.rawValueCount(reopened) == 0)
        #expect(try reopened.store.query(.all("accounts", pageSize: count)) == before)
        #expect(
            try reopened.store.query(.exact("accounts", path: "Industry", value: "Retail", pageSize: count)) == exact)
    }

    @Test func aDictionaryEntryWithoutTheRewriteMemberCompressesEveryRecordInItsFold() throws {
        let fixture = try Self.filledStore(Self.threshold - 1)
        defer { fixture.remove() }
        let before = try fixture.store.query(.all("accounts", pageSize: Self.threshold))
        let sample = try fixture.store.read { state in
            try (1...Int64(Self.threshold - 1)).compactMap { try state.recordJSON(1, $0) }
        }
        let bytes = try #require(RecordDictionaryTrainer.dictionary(from: sample))
        // The payload the first build with dictionaries wrote: no `rewritesRecords`.
        let payload = SoupDictionaryEntry(soup: "accounts", id: 1, bytes: bytes, rewritesRecords: true).payload
        #expect(payload["rewritesRecords"] == nil)
        try fixture.journal.write { writer in
            try fixture.store.append(.dictionary, soup: "accounts", payload, to: &writer)
        }
        #expect(try Self.rawValueCount(fixture) == 0)
        #expect(try fixture.store.read { try $0.pendingRecompression(1) } == nil)
        #expect(try fixture.store.query(.all("accounts", pageSize: Self.threshold)) == before)
        #expect(try fixture.rebuildMatches())
    }

    @Test func aClearedSoupHasNothingLeftToCompress() throws {
        let fixture = try SoupFixture("soups-compression", encryption: nil)
        defer { fixture.remove() }
        try fixture.store.registerSoup("accounts", indexSpecs: Self.specs)
        try fixture.store.create("accounts", (0..<SoupStore.recompressionEntryCountMax + 10).map(Self.account))
        #expect(try fixture.store.read { try $0.pendingRecompression(1) } != nil)
        try fixture.store.clearSoup("accounts")
        #expect(try fixture.store.read { try $0.pendingRecompression(1) } == nil)
        #expect(try fixture.journal.count(of: SoupEntryKind.recompressed.kind) == 1)
    }

    @Test func verifyComparesRecordValuesByTheirJSONNotTheirCompressedBytes() throws {
        let fixture = try Self.filledStore(Self.threshold + 10)
        defer { fixture.remove() }
        let all = try fixture.store.query(.all("accounts", pageSize: Self.threshold + 10))
        try fixture.journal.close()
        // Another encoding of record 1 (its JSON: a zstd of another version might compress it
        // otherwise) and another record in record 2.
        try Self.withProjections(of: fixture) { transaction, databases, _ in
            let dictionaryBytes = try #require(
                try transaction.get(databases.dictionaries, key: SoupDatabases.dictionaryKey(1, 1)))
            let dictionary = try #require(RecordDictionary(id: 1, bytes: dictionaryBytes))
            for entryId: Int64 in [1, 2] {
                let key = SoupDatabases.recordKey(1, entryId)
                let value = try #require(try transaction.get(databases.records, key: key))
                #expect(value.first == StoredRecordValue.compressedTag)
                var replaced = try StoredRecordValue.json(of: value) { _ in dictionary }
                if entryId == 2 { replaced = Self.setting(all[1], ["Name": "Not what the journal says"]).serialized() }
                try transaction.put(databases.records, key: key, value: replaced)
            }
        }
        let reopened = try SoupFixture.reopen(fixture, encryption: nil)
        defer { reopened.remove() }
        let report = try reopened.journal.verify()
        let divergence = try #require(report.divergences.first { $0.database == "soups.records" })
        // The walk stops at a database's first divergence: record 1 is passed, record 2 is it.
        #expect(divergence.key == SoupDatabases.recordKey(1, 2))
        #expect(report.divergences.count == 1)
    }

    @Test func verifyReportsADamagedCompressedValue() throws {
        let fixture = try Self.filledStore(Self.threshold + 10)
        defer { fixture.remove() }
        try fixture.journal.close()
        try Self.withProjections(of: fixture) { transaction, databases, _ in
            let key = SoupDatabases.recordKey(1, 4)
            var value = try #require(try transaction.get(databases.records, key: key))
            for position in value.count - 8..<value.count { value[position] ^= 0x5A }
            try transaction.put(databases.records, key: key, value: value)
        }
        let reopened = try SoupFixture.reopen(fixture, encryption: nil)
        defer { reopened.remove() }
        let report = try reopened.journal.verify()
        #expect(report.divergences.map(\.key) == [SoupDatabases.recordKey(1, 4)])
    }

    /// How many values of `soups.records` are stored as JSON.
    private static func rawValueCount(_ fixture: SoupFixture) throws -> Int {
        try storedValues(fixture).filter { $0.first == UInt8(ascii: "{") }.count
    }

    @Test(arguments: ["bad frame", "unknown dictionary"])
    func aDamagedCompressedValueIsAStorageError(damage: String) throws {
        let fixture = try Self.filledStore(Self.threshold)
        defer { fixture.remove() }
        let first = try #require(try fixture.store.query(.all("accounts", pageSize: 1)).first)
        try fixture.journal.close()
        try Self.withProjections(of: fixture) { transaction, databases, _ in
            let key = SoupDatabases.recordKey(1, try #require(first.entryId))
            var value = try #require(try transaction.get(databases.records, key: key))
            #expect(value.first == StoredRecordValue.compressedTag)
            if damage == "bad frame" {
                for position in value.count - 8..<value.count { value[position] ^= 0x5A }
            } else {
                value[4] = 7
            }
            try transaction.put(databases.records, key: key, value: value)
        }
        let reopened = try SoupFixture.reopen(fixture, encryption: nil)
        expectError(.storage) { try reopened.store.retrieve("accounts", ids: [first.entryId!]) }
        expectError(.storage) { try reopened.store.query(.all("accounts", pageSize: 5)) }
    }

    /// `record` with `members` set.
    private static func setting(_ record: JSONValue, _ members: [String: JSONValue]) -> JSONValue {
        guard case .object(let fields) = record else { return record }
        return .object(fields.merging(members) { _, new in new })
    }

    /// Opens the closed store's projections as the migration tests do, and runs `body` in a write.
    private static func withProjections(
        of fixture: SoupFixture, _ body: (Transaction, SoupDatabases, Database) throws -> Void
    ) throws {
        let environment = try Environment(
            directory: fixture.directory.appending("store").appendingPathComponent("projections"),
            options: EnvironmentOptions(), sealer: ValueChecksummer())
        let databases = SoupDatabases { name in
            (try? environment.database(named: name)) ?? { preconditionFailure("no database \(name)") }()
        }
        let fold = try environment.database(named: "journal.fold")
        try environment.write { transaction in try body(transaction, databases, fold) }
    }
}
