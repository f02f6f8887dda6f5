package import Foundation
import LMDBStore

/// Checks every projection value of a plaintext store on read (decision 0012): the sealed value
/// is the value followed by the CRC-32C (`UInt32` little-endian) of the database's name, a zero
/// byte, the key and the value.
///
/// An encrypted store needs none of this: AES-GCM authenticates its values (``StoreCipher``).
/// The checksum binds the value to its place as the cipher's authenticated data does, so a
/// value changed on disk, or copied under another key or into another database, fails with
/// ``JournalError/Code/damaged`` instead of being read. The value itself is left where it is:
/// a read that needs no copy (a record decoded in place) still makes none, and the check costs
/// one hardware CRC-32C over bytes already in the cache.
///
/// `journal.fold` is left unchecked: opening reads its layout version, projection signature
/// and fold mark before it knows whether the values carry checksums (a store written before
/// this change has none), and from a read-only environment without a sealer when it looks for a
/// journal behind its projections (decision 0009). The journal's own environment is not
/// checked by this either: every entry's envelope carries its CRC-32C already. Package-visible
/// so tests can open a plaintext store's projections the way the store does.
package final class ValueChecksummer: InPlaceValueSealer {
    /// Bytes a checked value has beyond the value.
    static let checksumByteCount = 4

    /// The file a failed check leaves, so that the next open rebuilds the projections (see
    /// ``JournalOpening``); `nil` for environments thrown away or copied whole (scratch folds,
    /// checkpoints), whose damage the live store does not share.
    let damageMarker: URL?

    /// A checksummer that leaves `damageMarker` when a check fails, or nothing when `nil`.
    package init(damageMarker: URL? = nil) {
        self.damageMarker = damageMarker
    }

    /// Every database but `journal.fold`, which opening reads before it knows the layout.
    package func seals(databaseNamed name: String) -> Bool {
        name != ProjectionStore.foldDatabaseName
    }

    /// The value followed by its checksum.
    package func seal(_ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String) throws -> [UInt8]
    {
        let count = sealedByteCount(forValueByteCount: value.count)
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            seal(value, key: key, database: database, into: UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }

    /// A value and its checksum.
    package func sealedByteCount(forValueByteCount count: Int) -> Int {
        count + Self.checksumByteCount
    }

    /// Writes the value followed by its checksum into `output`.
    package func seal(
        _ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String,
        into output: UnsafeMutableRawBufferPointer
    ) {
        let checksum = Self.checksum(value, key: key, database: database)
        if let base = value.baseAddress { output.baseAddress?.copyMemory(from: base, byteCount: value.count) }
        output.storeBytes(of: checksum.littleEndian, toByteOffset: value.count, as: UInt32.self)
    }

    /// A copy of the value, once its checksum is checked.
    package func open(_ sealed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String) throws -> [UInt8]
    {
        try withOpened(sealed, key: key, database: database) { Array($0) }
    }

    /// Checks the value in place and hands `body` the stored bytes without their checksum.
    package func withOpened<T>(
        _ sealed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String,
        _ body: (UnsafeRawBufferPointer) throws -> T
    ) throws -> T {
        guard sealed.count >= Self.checksumByteCount else {
            throw damaged(key: key, database: database, "is \(sealed.count) bytes, too short to carry its checksum")
        }
        let valueCount = sealed.count - Self.checksumByteCount
        let value = UnsafeRawBufferPointer(rebasing: sealed[..<valueCount])
        let stored = UInt32(littleEndian: sealed.loadUnaligned(fromByteOffset: valueCount, as: UInt32.self))
        let expected = Self.checksum(value, key: key, database: database)
        guard stored == expected else {
            throw damaged(
                key: key, database: database,
                "fails its checksum (stored \(String(stored, radix: 16)), computed \(String(expected, radix: 16)))")
        }
        return try body(value)
    }

    /// Plaintext stores have no index key: hashed indexes need an encrypted store.
    package func keyedDigest(of bytes: [UInt8]) -> [UInt8] {
        []
    }

    /// The CRC-32C of `database`'s name, a zero byte, `key` and `value`: the zero ends the
    /// name, so no name and key can be confused with another pair that has the same bytes.
    static func checksum(_ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String) -> UInt32 {
        var name = database
        var crc = name.withUTF8 { CRC32C.checksum(UnsafeRawBufferPointer($0)) }
        crc = withUnsafeBytes(of: UInt8(0)) { CRC32C.checksum($0, continuing: crc) }
        crc = CRC32C.checksum(key, continuing: crc)
        return CRC32C.checksum(value, continuing: crc)
    }

    /// The error for a value that fails its check, after leaving the mark that makes the next
    /// open rebuild the projections.
    private func damaged(key: UnsafeRawBufferPointer, database: String, _ problem: String) -> JournalError {
        var message =
            "the value of key 0x\(Hexadecimal.string(key)) in \(database) \(problem): the projections are damaged "
            + "and it is not read"
        if let damageMarker {
            do {
                try Self.leaveMark(at: damageMarker)
                message += "; the next open rebuilds them from the journal"
            } catch {
                message +=
                    "; noting the damage failed (\(error)), remove \(damageMarker.deletingLastPathComponent().path) to rebuild them"
            }
        }
        return JournalError(.damaged, message)
    }

    /// Writes the mark durably: a read that found damage may be the last thing the process does.
    static func leaveMark(at marker: URL) throws {
        let files = FileManager.default
        guard !files.fileExists(atPath: marker.path) else { return }
        try Data("a read found a projection value that failed its check\n".utf8).write(to: marker)
        try FileDurability.flushFile(marker)
        try FileDurability.flushDirectory(marker.deletingLastPathComponent())
    }
}
