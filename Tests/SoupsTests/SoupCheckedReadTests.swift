import Determinism
import EventJournal
import Foundation
import LMDBStore
import LosslessJSON
import Soups
import Testing

/// Seeded damage of a store's soup records, plaintext and encrypted (decision 0012): no read
/// returns a changed record; the read throws, and the next open serves the records as they
/// were written.
@Suite struct SoupCheckedReadTests {
    let specs = [IndexSpec(path: "Id", type: .string), IndexSpec(path: "Amount", type: .integer)]

    /// Changes one seeded byte of one seeded value of `database`, past the seal; returns its key.
    private func damage(_ fixture: SoupFixture, database name: String, using random: inout SplitMix64) throws {
        let environment = fixture.journal.projectionEnvironment
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
            let offset = Int.random(in: 0..<value.count, using: &random)
            value[offset] ^= UInt8.random(in: 1...255, using: &random)
            try transaction.put(database, key: key, value: value)
        }
    }

    static let key = try! StoreKey(bytes: [UInt8](repeating: 0x3D, count: StoreKey.byteCount))

    @Test(arguments: UInt64(0)..<24, [false, true])
    func aDamagedRecordIsNeverReadAndTheNextOpenHealsTheStore(seed: UInt64, encrypted: Bool) throws {
        var random = SplitMix64(seed: seed)
        let encryption = encrypted ? Self.key : nil
        let fixture = try SoupFixture("soup-checked-\(seed)", encryption: encryption)
        defer { fixture.remove() }
        try fixture.store.registerSoup("accounts", indexSpecs: specs)
        let records: [JSONValue] = (1...8).map { n in
            ["Id": .string("\(n)"), "Amount": .number(JSONNumber(Int64(n) * 100)), "Name": .string("n\(n)")]
        }
        let created = try fixture.store.create("accounts", records)
        let ids = created.compactMap { $0.entryId }
        try damage(fixture, database: "soups.records", using: &random)

        // Every read gives the record as written or throws; at least the damaged one throws.
        var failures = 0
        for (id, record) in zip(ids, created) {
            do {
                let read = try fixture.store.retrieve("accounts", ids: [id])
                #expect(read == [record])
            } catch {
                failures += 1
                #expect(Self.isDamaged(error), "\(error)")
            }
        }
        #expect(failures == 1)
        do {
            let page = try fixture.store.query(.all("accounts", orderPath: "Id", pageSize: 100))
            Issue.record("a query over a damaged record returned \(page)")
        } catch {
            #expect(Self.isDamaged(error), "\(error)")
        }
        try fixture.journal.close()

        let healed = try SoupFixture.reopen(fixture, encryption: encryption)
        #expect(healed.journal.openingReport.projections == .rebuilt)
        #expect(try healed.store.retrieve("accounts", ids: ids) == created)
        #expect(try healed.rebuildMatches())
    }

    /// The check's error (a checksum's, or the cipher's authentication), as the soups pass it
    /// on: the journal's, or the soups' storage error caused by it.
    static func isDamaged(_ error: any Error) -> Bool {
        if let error = error as? JournalError { return error.code == .damaged || error.code == .tampered }
        if let error = error as? SoupError, let cause = error.cause { return isDamaged(cause) }
        return false
    }
}
