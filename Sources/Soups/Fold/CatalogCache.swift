import Synchronization

/// Decoded soup catalog entries, keyed by name and checked against the bytes stored for them.
///
/// Every query and save starts by reading its soup's catalog entry; decoding that JSON (and
/// splitting each index path) cost about a tenth of an exact lookup, and opening it (its
/// checksum, or on an encrypted store its decryption) another tenth. The cache never decides
/// what the catalog says: a hit requires the bytes just read from the transaction, sealed as
/// LMDB holds them, to equal those the entry was opened and decoded from. Every write seals an
/// entry anew (a new checksum over its new bytes, or a new nonce), so an alter, a drop, a
/// rebuild, a re-key or another process can never leave a stale entry in use, and bytes equal to
/// ones already opened need no second check.
final class CatalogCache: Sendable {
    private struct Slot {
        var sealed: [UInt8]
        var entry: SoupCatalogEntry
    }

    /// The most soups kept; past it the cache starts over, which only costs decoding again.
    static let soupCountMax = 64

    private let slots = Mutex<[String: Slot]>([:])

    init() {}

    /// The entry remembered for `name` when it was decoded from exactly `sealed`, the stored
    /// bytes (compared in place); `nil` otherwise.
    func entry(_ name: String, sealed: UnsafeRawBufferPointer) -> SoupCatalogEntry? {
        guard let slot = slots.withLock({ $0[name] }), sealed.hasSameBytes(as: slot.sealed) else { return nil }
        return slot.entry
    }

    /// Remembers `entry` as what the stored bytes `sealed` of `name` open and decode to.
    func remember(_ entry: SoupCatalogEntry, for name: String, sealed: [UInt8]) {
        slots.withLock { slots in
            if slots.count >= Self.soupCountMax { slots.removeAll() }
            slots[name] = Slot(sealed: sealed, entry: entry)
        }
    }
}
