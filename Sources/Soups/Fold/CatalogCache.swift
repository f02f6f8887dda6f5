import Synchronization

/// Decoded soup catalog entries, keyed by name and checked against the stored bytes.
///
/// Every query and save starts by reading its soup's catalog entry; decoding that JSON (and
/// splitting each index path) cost about a tenth of an exact lookup. The cache never decides
/// what the catalog says: a hit requires the bytes just read from the transaction to equal
/// the bytes the entry was decoded from, so an alter, a drop, a rebuild or another process
/// can never leave a stale entry in use.
final class CatalogCache: Sendable {
    private struct Slot {
        var bytes: [UInt8]
        var entry: SoupCatalogEntry
    }

    /// The most soups kept; past it the cache starts over, which only costs decoding again.
    static let soupCountMax = 64

    private let slots = Mutex<[String: Slot]>([:])

    init() {}

    /// The entry decoded from `stored` (the bytes in the store, compared in place) for `name`,
    /// decoding and remembering it on a miss.
    func entry(_ name: String, stored: UnsafeRawBufferPointer, decode: ([UInt8]) throws -> SoupCatalogEntry) throws
        -> SoupCatalogEntry
    {
        if let slot = slots.withLock({ $0[name] }), stored.hasSameBytes(as: slot.bytes) { return slot.entry }
        let bytes = Array(stored)
        let entry = try decode(bytes)
        slots.withLock { slots in
            if slots.count >= Self.soupCountMax { slots.removeAll() }
            slots[name] = Slot(bytes: bytes, entry: entry)
        }
        return entry
    }
}
