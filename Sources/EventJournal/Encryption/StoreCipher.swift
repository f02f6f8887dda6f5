import Crypto
import Foundation
import LMDBStore
import Synchronization

/// Seals every value of a store's environments with AES-GCM (decision 0006).
///
/// A sealed value is the data key's generation (1 byte), a random nonce (12 bytes), the
/// ciphertext and the tag (16 bytes). An empty value (an index entry: all its meaning is in its
/// key) is the generation and an 8-byte SipHash-2-4 tag under a key derived from the data key:
/// nothing to hide, so only authentication, at a fraction of the cost of a seal. The authenticated data is the database's name and the
/// value's key, so a value changed, or copied under another key or into another database,
/// fails to open with ``JournalError/Code/tampered`` instead of being read.
///
/// Data keys and each cipher's first nonce come from the system's secure generator, never from
/// an injected seeded one: a repeated nonce would reveal plaintext. Later nonces count up from
/// the first (a 96-bit counter): asking the kernel for randomness at every seal cost a tenth of
/// an ingest, and two ciphers' runs of nonces overlap only if their random starts fall within a
/// run's length of each other, about 2^-60 for a million opens of a billion seals each. Only
/// the bytes on disk vary; the fold sees the same plaintext as without encryption, so it stays
/// deterministic.
final class StoreCipher: ValueSealer {
    /// The one database left unsealed: it holds the wrapped keys themselves.
    static let keysDatabaseName = "journal.keys"
    static let keyRecordKey = Array("store-keys".utf8)
    /// Bytes a sealed value has beyond its plaintext.
    static let overheadByteCount = 1 + 12 + 16
    /// Bytes of a sealed empty value.
    static let emptyValueByteCount = 1 + 8

    /// The keys in use, and the MACs of empty values derived from them once, by generation.
    private struct Keys {
        var ring: StoreKeyRing
        var emptyValueMACs: [UInt8: SipHash]
    }

    /// `nil` until opening the store has read (or made) its key record.
    private let keys = Mutex<Keys?>(nil)
    /// The next nonce, as a 96-bit counter (high 32 bits, low 64 bits) from a random start.
    private let nextNonce: Mutex<(high: UInt32, low: UInt64)> = {
        let start = SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) }
        let high = start[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let low = start[4..<12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Mutex((high, low))
    }()

    /// The keys in use.
    var keyRing: StoreKeyRing? {
        get { keys.withLock { $0?.ring } }
        set {
            let derived = newValue.map { ring in
                Keys(ring: ring, emptyValueMACs: ring.dataKeys.mapValues { SipHash(derivedFrom: $0) })
            }
            keys.withLock { $0 = derived }
        }
    }

    /// The current generation and its key, or why there is none: keys not loaded yet, or a
    /// ring without its current generation (which making and reading rings never produce).
    private static func current<Key>(_ loaded: (UInt8, Key?)?) throws -> (UInt8, Key) {
        guard let (generation, key) = loaded else {
            throw JournalError(.keyRequired, "the store's keys are not loaded yet")
        }
        guard let key else {
            throw JournalError(.storage, "the store's key ring has no key of its current generation \(generation)")
        }
        return (generation, key)
    }

    func seals(databaseNamed name: String) -> Bool {
        name != Self.keysDatabaseName
    }

    func seal(_ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String) throws -> [UInt8] {
        if value.isEmpty {
            let (generation, mac) = try Self.current(
                keys.withLock { keys in
                    keys.map { ($0.ring.current, $0.emptyValueMACs[$0.ring.current]) }
                })
            return [generation] + Self.tag(mac, key: key, database: database)
        }
        let (generation, dataKey) = try Self.current(
            keys.withLock { keys in
                keys.map { ($0.ring.current, $0.ring.dataKeys[$0.ring.current]) }
            })
        let box = try Self.withContext(key: key, database: database) { context in
            try AES.GCM.seal(value, using: dataKey, nonce: try takeNonce(), authenticating: context)
        }
        // `combined` is nonce, ciphertext and tag in one buffer: one copy, where asking for the
        // ciphertext and the tag makes a buffer of each.
        guard let combined = box.combined else { preconditionFailure("a 12-byte nonce always combines") }
        var sealed: [UInt8] = []
        sealed.reserveCapacity(value.count + Self.overheadByteCount)
        sealed.append(generation)
        sealed.append(contentsOf: combined)
        return sealed
    }

    func open(_ sealed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String) throws -> [UInt8] {
        Array(try plaintext(of: sealed, key: key, database: database))
    }

    /// Hands `body` the plaintext where swift-crypto returned it, without copying it into an
    /// array first.
    func withOpened<T>(
        _ sealed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String,
        _ body: (UnsafeRawBufferPointer) throws -> T
    ) throws -> T {
        try plaintext(of: sealed, key: key, database: database).withUnsafeBytes { try body($0) }
    }

    /// The authenticated plaintext of `sealed`, or ``JournalError/Code/tampered``.
    func plaintext(of sealed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String) throws -> Data {
        if sealed.count == Self.emptyValueByteCount {
            guard let mac = keys.withLock({ $0?.emptyValueMACs[sealed[0]] }) else {
                throw tampered(
                    key: key, database: database,
                    "is sealed under key generation \(sealed[0]), which the store does not hold")
            }
            let expected = Self.tag(mac, key: key, database: database)
            // Constant time: every byte compared whatever the first difference.
            let difference = zip(expected, sealed.dropFirst()).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) }
            guard difference == 0 else { throw tampered(key: key, database: database, "failed authentication") }
            return Data()
        }
        guard sealed.count >= Self.overheadByteCount else {
            throw tampered(key: key, database: database, "is too short to be sealed")
        }
        guard let dataKey = keys.withLock({ $0?.ring.dataKeys[sealed[0]] }) else {
            throw tampered(
                key: key, database: database,
                "is sealed under key generation \(sealed[0]), which the store does not hold")
        }
        do {
            let box = try AES.GCM.SealedBox(combined: UnsafeRawBufferPointer(rebasing: sealed[1...]))
            return try Self.withContext(key: key, database: database) { context in
                try AES.GCM.open(box, using: dataKey, authenticating: context)
            }
        } catch {
            throw tampered(key: key, database: database, "failed authentication", cause: error)
        }
    }

    /// A nonce never used by this cipher.
    private func takeNonce() throws -> AES.GCM.Nonce {
        let (high, low) = nextNonce.withLock { counter in
            defer {
                counter.low &+= 1
                if counter.low == 0 { counter.high &+= 1 }
            }
            return counter
        }
        // Big-endian, high then low, in a temporary buffer: no array per seal.
        return try withUnsafeTemporaryAllocation(byteCount: 12, alignment: 1) { bytes in
            bytes.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt32.self)
            bytes.storeBytes(of: low.bigEndian, toByteOffset: 4, as: UInt64.self)
            return try AES.GCM.Nonce(data: UnsafeRawBufferPointer(bytes))
        }
    }

    /// HMAC-SHA256 under the store's index key, cut to 16 bytes: equal values still match,
    /// and nobody without the key can test a guess against the digest.
    func keyedDigest(of bytes: [UInt8]) -> [UInt8] {
        guard let indexKey = keys.withLock({ $0?.ring.indexKey }) else { return [] }
        return Array(HMAC<SHA256>.authenticationCode(for: bytes, using: indexKey).prefix(16))
    }

    /// The generation `sealed` was sealed under.
    static func generation(of sealed: UnsafeRawBufferPointer) -> UInt8? {
        sealed.first
    }

    /// The tag of an empty value: SipHash of its database's name, a zero byte and its key.
    private static func tag(_ mac: SipHash, key: UnsafeRawBufferPointer, database: String) -> [UInt8] {
        var name = database
        let tag = name.withUTF8 { mac.hash(UnsafeRawBufferPointer($0), separator: 0, key) }
        return withUnsafeBytes(of: tag.littleEndian) { Array($0) }
    }

    /// Calls `body` with the authenticated data of a value: its database's name, a zero byte
    /// and its key, laid out in a temporary buffer (on the stack when small) instead of an
    /// array per seal and per open.
    private static func withContext<T>(
        key: UnsafeRawBufferPointer, database: String, _ body: (UnsafeRawBufferPointer) throws -> T
    ) throws -> T {
        var name = database
        return try name.withUTF8 { name in
            try withUnsafeTemporaryAllocation(byteCount: name.count + 1 + key.count, alignment: 1) { buffer in
                buffer.copyMemory(from: UnsafeRawBufferPointer(name))
                buffer[name.count] = 0
                UnsafeMutableRawBufferPointer(rebasing: buffer[(name.count + 1)...]).copyMemory(from: key)
                return try body(UnsafeRawBufferPointer(buffer))
            }
        }
    }

    /// The error for a value that does not open: it names the entry's sequence in the journal,
    /// and the database and key elsewhere.
    private func tampered(
        key: UnsafeRawBufferPointer, database: String, _ problem: String, cause: (any Error)? = nil
    ) -> JournalError {
        var sequence: UInt64?
        let place: String
        if database == Journal.entriesDatabaseName, key.count == 8 {
            sequence = key.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            place = "entry \(sequence!)"
        } else {
            place = "the value of key 0x\(Hexadecimal.string(key)) in \(database)"
        }
        return JournalError(
            .tampered,
            "\(place) \(problem): the store was changed without its key, or is damaged; it is not read",
            sequence: sequence, cause: cause)
    }
}
