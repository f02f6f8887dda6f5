import EventJournal
import LMDBStore
import LosslessJSON
import MobileSync
import SalesforceSimulator
import SyncTesting
import Testing

@testable import Soups

/// A large sync-down page's record values are compressed ahead of the fold, two halves at once
/// (decision 0034): each stored value is what compressing that record alone at its put gives,
/// and every record reads back as the server has it.
@Suite struct PreparedPageValuesTests {
    /// Pages of 1,300: the first crosses the dictionary threshold, the second is compressed ahead.
    static let accountCount = 2_600

    /// Every value of `soups.records` with its `_soupEntryId`, and the soup's dictionaries by id.
    static func storedValues(_ store: SyncStore) throws -> (
        values: [(entryId: Int64, value: [UInt8])], dictionaries: [UInt32: RecordDictionary]
    ) {
        try store.journal.read { reader in
            var values: [(entryId: Int64, value: [UInt8])] = []
            var soupId: UInt32 = 0
            try reader.transaction.withCursor(reader.database(named: "soups.records")) { cursor in
                try cursor.forEach { key, value in
                    // One soup: its id is the first four bytes of every key, big-endian.
                    soupId = key.prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
                    values.append((SoupDatabases.entryId(ofKey: key), value))
                    return true
                }
            }
            var dictionaries: [UInt32: RecordDictionary] = [:]
            for (_, value) in values {
                guard let id = StoredRecordValue.dictionaryId(of: value), dictionaries[id] == nil else { continue }
                let key = SoupDatabases.dictionaryKey(soupId, id)
                let bytes = try #require(
                    try reader.transaction.get(reader.database(named: "soups.dictionaries"), key: key))
                let dictionary = try #require(RecordDictionary(id: id, bytes: bytes))
                dictionaries[id] = dictionary
            }
            return (values, dictionaries)
        }
    }

    /// Checks that each stored value is its record compressed alone, under its own key.
    static func expectValuesCompressedOneByOne(_ store: SyncStore) throws {
        let (values, dictionaries) = try storedValues(store)
        #expect(values.count == accountCount)
        let compressed = values.filter { StoredRecordValue.dictionaryId(of: $0.value) != nil }
        #expect(compressed.count >= 1_300, "the second page is compressed")
        for (entryId, value) in compressed {
            let id = try #require(StoredRecordValue.dictionaryId(of: value))
            let dictionary = try #require(dictionaries[id])
            let json = try StoredRecordValue.json(of: value) { dictionaries[$0] }
            #expect(value == StoredRecordValue.stored(json, with: dictionary))
            #expect(try JSONValue(parsing: json)["_soupEntryId"]?.number?.int64Value == entryId)
        }
    }

    @Test func aPageCompressedAheadStoresWhatEachRecordCompressedAloneStoresAndReadsBack() async throws {
        try await SyncHarness.with(accounts: Self.accountCount) { harness in
            let target = try SyncDownEndToEndTests.soqlTarget(maxBatchSize: 1_300)
            try await harness.manager.syncDown(target: target, soupName: SyncHarness.soup, name: "all")
            try Self.expectValuesCompressedOneByOne(harness.store)
            var byId = try harness.recordsById()
            #expect(byId.count == Self.accountCount)
            for number in 0..<Self.accountCount {
                let name = "Account " + String(String(number + 1000).dropFirst())
                #expect(byId[SyncHarness.accountId(number)]?["Name"]?.string == name)
            }

            // A page that matches records already stored compresses them ahead too, under their ids.
            let changed = Array(stride(from: 0, to: Self.accountCount, by: 7))
            for number in changed {
                try harness.simulator.write(
                    type: "Account", id: SyncHarness.accountId(number), fields: ["Name": .string("Changed \(number)")])
            }
            let final = try await harness.manager.reSync(name: "all")
            #expect(final.status == .done, "\(final.error)")
            try Self.expectValuesCompressedOneByOne(harness.store)
            byId = try harness.recordsById()
            #expect(byId.count == Self.accountCount)
            for number in changed {
                #expect(byId[SyncHarness.accountId(number)]?["Name"]?.string == "Changed \(number)")
            }
        }
    }
}
