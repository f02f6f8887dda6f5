import Determinism
import EventJournal
import Foundation
import LosslessJSON
import Soups
import SyncTesting
import Testing

/// A damaged branch page of the projections can send a lookup to the wrong leaf while a walk in
/// key order still meets every key. No query answers wrongly: each lookup is checked against its
/// neighbours and throws; `verify` looks each stored key up again and reports the damage; the
/// next open rebuilds the projections (issue 49).
@Suite struct DamagedBranchPageTests {
    static let key = try! StoreKey(bytes: [UInt8](repeating: 0x5A, count: StoreKey.byteCount))
    static let recordCount = 3_000

    @Test(arguments: [false, true])
    func aBranchPageThatMisroutesLookupsIsNeverASilentWrongAnswer(encrypted: Bool) throws {
        let encryption = encrypted ? Self.key : nil
        let fixture = try SoupFixture("branch-damage", flushesOnCommit: false, encryption: encryption)
        defer { fixture.remove() }
        try fixture.store.registerSoup("accounts", indexSpecs: [IndexSpec(path: "Name", type: .string)])
        let records: [JSONValue] = (0..<Self.recordCount).map { number in
            ["Name": .string("Account " + String(String(number + 100_000).dropFirst()))]
        }
        let created = try fixture.store.create("accounts", records)
        #expect(try fixture.journal.verify().isConsistent)
        try fixture.journal.close()

        let scrambled = try Self.scrambleBranchKeys(
            fixture.directory.appending("store").appendingPathComponent("projections/data.mdb"))
        #expect(scrambled > 0)
        let damaged = try SoupFixture.reopen(fixture, encryption: encryption)
        let report = try damaged.journal.verify()
        #expect(!report.isConsistent)
        #expect(report.divergences.contains { $0.structure == .unreachable }, "\(report.divergences)")
        #expect(report.divergences.contains { $0.description.contains("branch page") })
        // Every lookup answers right or throws; some throw.
        var refused = 0
        for record in created {
            let spec = QuerySpec.exact("accounts", path: "Name", value: record["Name"] ?? .null)
            do {
                #expect(try damaged.store.query(spec) == [record])
            } catch let error as SoupError {
                #expect(String(reflecting: error).contains("CORRUPTED"), "\(error)")
                refused += 1
            }
        }
        #expect(refused > 0)
        try damaged.journal.close()

        let healed = try SoupFixture.reopen(fixture, encryption: encryption)
        #expect(healed.journal.openingReport.projections == .rebuilt)
        #expect(try healed.journal.verify().isConsistent)
        for record in created.prefix(300) {
            let spec = QuerySpec.exact("accounts", path: "Name", value: record["Name"] ?? .null)
            #expect(try healed.store.query(spec) == [record])
        }
    }

    /// Replaces the second separator key of every branch page of the LMDB file at `url` with
    /// 0xFF bytes of the same length, so lookups of the keys under it descend to its left
    /// sibling; the walk in key order moves from page to page through the parents' positions
    /// and still meets every key. Returns how many pages were changed.
    ///
    /// The layout read is LMDB's on 64-bit systems: a 16-byte page header (flags at 10, the end
    /// of the node offsets at 12), then 2-byte node offsets; a node is 8 bytes (its key size at
    /// 6) followed by its key. The page size is the free database's `md_pad` in the meta page.
    static func scrambleBranchKeys(_ url: URL) throws -> Int {
        var bytes = [UInt8](try Data(contentsOf: url))
        func word(_ offset: Int) -> Int { Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 }
        let pageSize = word(40) | word(42) << 16
        #expect(pageSize >= 512 && pageSize.nonzeroBitCount == 1, "page size \(pageSize)")
        let branchFlag = 0x01
        var changed = 0
        for page in stride(from: pageSize * 2, to: bytes.count - pageSize + 1, by: pageSize) {
            guard word(page + 10) & 0x7F == branchFlag else { continue }
            let nodeCount = (word(page + 12) - 16) / 2
            guard nodeCount >= 3 else { continue }
            let node = page + word(page + 16 + 2)
            let keySize = word(node + 6)
            guard keySize > 0, node + 8 + keySize <= page + pageSize else { continue }
            for offset in (node + 8)..<(node + 8 + keySize) { bytes[offset] = 0xFF }
            changed += 1
        }
        try Data(bytes).write(to: url)
        return changed
    }
}
