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
