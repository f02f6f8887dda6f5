import Testing

@testable import Soups

@Suite struct CatalogCacheTests {
    private func entry(_ indexCount: Int) -> SoupCatalogEntry {
        let indexes = (0..<indexCount).map {
            SoupCatalogEntry.CatalogIndex(spec: IndexSpec(path: "p\($0)", type: .string), id: UInt16($0))
        }
        return SoupCatalogEntry(name: "a", soupId: 1, indexes: indexes, nextIndexId: UInt16(indexCount))
    }

    @Test func sameBytesDecodeOnceAndChangedBytesDecodeAgain() throws {
        let cache = CatalogCache()
        var decodeCount = 0
        func read(_ bytes: [UInt8], _ indexCount: Int) throws -> SoupCatalogEntry {
            try bytes.withUnsafeBytes { stored in
                try cache.entry("a", stored: stored) { _ in
                    decodeCount += 1
                    return entry(indexCount)
                }
            }
        }
        #expect(try read([1, 2], 1) == entry(1))
        #expect(try read([1, 2], 1) == entry(1))
        #expect(decodeCount == 1)
        // An altered soup has other bytes: the old entry is never returned for them.
        #expect(try read([1, 3], 2) == entry(2))
        #expect(decodeCount == 2)
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
