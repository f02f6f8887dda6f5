import Determinism
import EventJournal
import LosslessJSON
import Testing

@testable import Soups

@Suite struct CatalogCacheTests {
    private func entry(_ indexCount: Int) -> SoupCatalogEntry {
        let indexes = (0..<indexCount).map {
            SoupCatalogEntry.CatalogIndex(spec: IndexSpec(path: "p\($0)", type: .string), id: UInt16($0))
        }
        return SoupCatalogEntry(name: "a", soupId: 1, indexes: indexes, nextIndexId: UInt16(indexCount))
    }

    @Test func anEntryIsReturnedOnlyForTheStoredBytesItWasDecodedFrom() throws {
        let cache = CatalogCache()
        func cached(_ bytes: [UInt8]) -> SoupCatalogEntry? {
            bytes.withUnsafeBytes { cache.entry("a", sealed: $0) }
        }
        #expect(cached([1, 2]) == nil)
        cache.remember(entry(1), for: "a", sealed: [1, 2])
        #expect(cached([1, 2]) == entry(1))
        // An altered soup, or the same entry sealed anew, has other bytes: never the old entry.
        #expect(cached([1, 3]) == nil)
        #expect(cached([1, 2, 0]) == nil)
        #expect([1, 2].withUnsafeBytes { cache.entry("b", sealed: $0) } == nil)
        cache.remember(entry(2), for: "a", sealed: [1, 3])
        #expect(cached([1, 3]) == entry(2))
        #expect(cached([1, 2]) == nil)
    }

    /// A store reads its catalog through the cache: an alter is seen at once, by this store and
    /// by another store on the same journal, plaintext and encrypted.
    @Test(arguments: [false, true])
    func anAlteredSoupIsReadAsAlteredByEveryStore(encrypted: Bool) throws {
        let key = try StoreKey(bytes: [UInt8](repeating: 0x5A, count: StoreKey.byteCount))
        let fixture = try SoupFixture(encryption: encrypted ? key : nil)
        defer { fixture.remove() }
        try fixture.store.registerSoup("a", indexSpecs: [IndexSpec(path: "Id", type: .string)])
        try fixture.store.create("a", ["Id": "1", "Name": "n"])
        let other = SoupStore(
            journal: fixture.journal, clock: ManualWallClock(), idGenerator: IncrementingIDGenerator())
        #expect(try other.count(.exact("a", path: "Id", value: "1", pageSize: 1)) == 1)
        try fixture.store.alterSoup("a", indexSpecs: [IndexSpec(path: "Name", type: .string)], reIndex: true)
        for store in [fixture.store, other] {
            #expect(try store.indexSpecs(of: "a") == [IndexSpec(path: "Name", type: .string)])
            #expect(try store.count(.exact("a", path: "Name", value: "n", pageSize: 1)) == 1)
            expectError(.noIndexForPath) { try store.count(.exact("a", path: "Id", value: "1", pageSize: 1)) }
        }
    }

    /// The cache's hit test: same length and same bytes, including a longer or shorter prefix
    /// and the empty value.
    @Test func storedBytesMatchOnlyTheSameBytes() {
        let bytes: [UInt8] = Array(0..<40)
        for length in 0...bytes.count {
            let value = Array(bytes[..<length])
            value.withUnsafeBytes { stored in
                #expect(stored.hasSameBytes(as: value))
                #expect(!stored.hasSameBytes(as: value + [0]))
                if length > 0 {
                    #expect(!stored.hasSameBytes(as: Array(value.dropLast())))
                    var changed = value
                    changed[length - 1] &+= 1
                    #expect(!stored.hasSameBytes(as: changed))
                }
            }
        }
    }
}
