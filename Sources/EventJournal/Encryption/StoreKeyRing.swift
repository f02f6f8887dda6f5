import Crypto
import Foundation

/// A store's own keys, unwrapped: the data keys values are sealed under, by generation, and
/// the key of keyed-hash indexes.
///
/// The journal keeps them in `journal.keys`, each wrapped (AES-GCM) under the app's
/// ``StoreKey``: one synced commit replaces the record, so re-keying is atomic (decision 0006).
package struct StoreKeyRing: Sendable {
    /// Data keys by generation. More than one only while a rotation re-seals the store.
    var dataKeys: [UInt8: SymmetricKey]
    /// The generation new values are sealed under.
    var current: UInt8
    /// The key of keyed-hash string indexes. It survives rotations, since the hashes in the
    /// indexes are computed with it.
    var indexKey: SymmetricKey

    init(dataKeys: [UInt8: SymmetricKey], current: UInt8, indexKey: SymmetricKey) {
        self.dataKeys = dataKeys
        self.current = current
        self.indexKey = indexKey
    }

    static let recordVersion: UInt8 = 1
    static let wrappedByteCount = 12 + StoreKey.byteCount + 16

    /// A new store's keys: generation 1, both keys fresh from the system's secure generator.
    package static func generate() -> StoreKeyRing {
        StoreKeyRing(
            dataKeys: [1: SymmetricKey(size: .bits256)], current: 1, indexKey: SymmetricKey(size: .bits256))
    }

    /// The ring with a fresh data key as the current generation; the older ones stay until
    /// every value sealed under them is sealed again.
    func addingGeneration() -> StoreKeyRing {
        var next = current == UInt8.max ? 1 : current + 1
        while dataKeys[next] != nil { next = next == UInt8.max ? 1 : next + 1 }
        var ring = self
        ring.dataKeys[next] = SymmetricKey(size: .bits256)
        ring.current = next
        return ring
    }

    /// The ring holding only the current generation.
    func retiringOlderGenerations() -> StoreKeyRing {
        var ring = self
        ring.dataKeys = dataKeys.filter { $0.key == current }
        return ring
    }

    // MARK: - The record

    /// The record stored in `journal.keys`: version, current generation, the wrapped data keys
    /// (generation, then nonce, ciphertext and tag), then the wrapped index key.
    func record(wrappedUnder appKey: StoreKey) throws -> [UInt8] {
        var bytes: [UInt8] = [Self.recordVersion, current, UInt8(dataKeys.count)]
        for (generation, dataKey) in dataKeys.sorted(by: { $0.key < $1.key }) {
            bytes.append(generation)
            bytes += try Self.wrap(dataKey, under: appKey, label: Self.dataKeyLabel(generation))
        }
        bytes += try Self.wrap(indexKey, under: appKey, label: Self.indexKeyLabel)
        return bytes
    }

    /// The ring a record holds.
    /// - Throws: ``JournalError/Code/wrongKey`` when `appKey` is not the key it was wrapped
    ///   under; ``JournalError/Code/tampered`` when the record is damaged.
    init(record: [UInt8], appKey: StoreKey) throws {
        func damaged() -> JournalError {
            JournalError(.tampered, "the store's key record in journal.keys is damaged")
        }
        guard record.count >= 3, record[0] == Self.recordVersion else { throw damaged() }
        let count = Int(record[2])
        guard count >= 1, record.count == 3 + count * (1 + Self.wrappedByteCount) + Self.wrappedByteCount else {
            throw damaged()
        }
        var dataKeys: [UInt8: SymmetricKey] = [:]
        var offset = 3
        for _ in 0..<count {
            let generation = record[offset]
            let wrapped = record[(offset + 1)..<(offset + 1 + Self.wrappedByteCount)]
            dataKeys[generation] = try Self.unwrap(wrapped, under: appKey, label: Self.dataKeyLabel(generation))
            offset += 1 + Self.wrappedByteCount
        }
        guard dataKeys[record[1]] != nil else { throw damaged() }
        let indexKey = try Self.unwrap(record[offset...], under: appKey, label: Self.indexKeyLabel)
        self.init(dataKeys: dataKeys, current: record[1], indexKey: indexKey)
    }

    private static let indexKeyLabel = Array("syncjournal.index-key".utf8)

    private static func dataKeyLabel(_ generation: UInt8) -> [UInt8] {
        Array("syncjournal.data-key".utf8) + [generation]
    }

    private static func wrap(_ key: SymmetricKey, under appKey: StoreKey, label: [UInt8]) throws -> [UInt8] {
        let box = try key.withUnsafeBytes { try AES.GCM.seal($0, using: appKey.symmetricKey, authenticating: label) }
        return Array(box.nonce) + Array(box.ciphertext) + Array(box.tag)
    }

    private static func unwrap(_ wrapped: ArraySlice<UInt8>, under appKey: StoreKey, label: [UInt8]) throws
        -> SymmetricKey
    {
        do {
            let box = try AES.GCM.SealedBox(combined: wrapped)
            return SymmetricKey(data: try AES.GCM.open(box, using: appKey.symmetricKey, authenticating: label))
        } catch {
            // The tag covers the label too, so a wrong key and a damaged record look alike;
            // the key is by far the likelier cause, and the message says both.
            throw JournalError(
                .wrongKey, "the key does not open this store (a wrong key, or a damaged key record)", cause: error)
        }
    }
}
