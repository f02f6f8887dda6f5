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
package final class StoreCipher: ValueSealer {
    /// The one database left unsealed: it holds the wrapped keys themselves.
    static let keysDatabaseName = "journal.keys"
    static let keyRecordKey = Array("store-keys".utf8)
    /// Bytes a sealed value has before its ciphertext: the generation and the nonce.
    static let headerByteCount = 1 + 12
    /// Bytes a sealed value has beyond its plaintext.
    static let overheadByteCount = headerByteCount + 16
    /// Bytes of a sealed empty value.
    static let emptyValueByteCount = 1 + 8

    /// The keys in use, with what is derived from them once, by generation: the MACs of empty
    /// values, and the AES-GCM key schedules where this build links them (decision 0017).
    private struct Keys {
        var ring: StoreKeyRing
        var emptyValueMACs: [UInt8: SipHash]
        var schedules: [UInt8: AESGCMKey]
    }

    /// The key of one generation: its schedule when there is one, else swift-crypto's key.
    private enum DataKey {
        case scheduled(AESGCMKey)
        case swiftCrypto(SymmetricKey)
    }

    /// `nil` until opening the store has read (or made) its key record.
    private let keys = Mutex<Keys?>(nil)
    /// The AES-GCM this cipher seals and opens with: ``AESGCMKey/Implementation/keySchedules``
    /// makes a schedule per data key where the build links them (decision 0017);
    /// ``AESGCMKey/Implementation/swiftCrypto`` seals and opens with swift-crypto everywhere,
    /// as on Apple platforms.
    package let implementation: AESGCMKey.Implementation
    /// The next nonce, as a 96-bit counter (high 32 bits, low 64 bits) from a random start.
    private let nextNonce: Mutex<(high: UInt32, low: UInt64)> = {
        let start = SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) }
        let high = start[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let low = start[4..<12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Mutex((high, low))
    }()

    /// A cipher with no keys loaded yet.
    ///
    /// - Parameter implementation: the AES-GCM to use; by default the one that passed its
    ///   known-answer test in this process (``AESGCMKey/active``, decision 0020). Tests pass
    ///   ``AESGCMKey/Implementation/swiftCrypto`` to check that the two agree.
    package init(implementation: AESGCMKey.Implementation = AESGCMKey.active) {
        self.implementation = implementation
    }

    /// Whether the loaded keys seal and open through AES-GCM key schedules (decision 0017),
    /// not swift-crypto.
    package var usesKeySchedules: Bool {
        keys.withLock { !($0?.schedules.isEmpty ?? true) }
    }

    /// The keys in use.
    package var keyRing: StoreKeyRing? {
        get { keys.withLock { $0?.ring } }
        set {
            let derived = newValue.map { ring in
                Keys(
                    ring: ring, emptyValueMACs: ring.dataKeys.mapValues { SipHash(derivedFrom: $0) },
                    schedules: implementation == .keySchedules
                        ? ring.dataKeys.compactMapValues { AESGCMKey($0) } : [:])
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

    /// The key of `generation`, scheduled when it can be.
    private static func dataKey(_ generation: UInt8, in keys: Keys) -> DataKey? {
        if let schedule = keys.schedules[generation] { return .scheduled(schedule) }
        return keys.ring.dataKeys[generation].map { .swiftCrypto($0) }
    }

    package func seals(databaseNamed name: String) -> Bool {
        name != Self.keysDatabaseName
    }

    package func seal(_ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String) throws -> [UInt8]
    {
        if value.isEmpty {
            let (generation, mac) = try Self.current(
                keys.withLock { keys in
                    keys.map { ($0.ring.current, $0.emptyValueMACs[$0.ring.current]) }
                })
            return Self.tag(mac, generation: generation, key: key, database: database)
        }
        let (generation, dataKey) = try Self.current(
            keys.withLock { keys in
                keys.map { ($0.ring.current, Self.dataKey($0.ring.current, in: $0)) }
            })
        let nonce = takeNonce()
        // Generation, nonce, ciphertext and tag written in place into the one array returned.
        return try [UInt8](unsafeUninitializedCapacity: value.count + Self.overheadByteCount) { buffer, count in
            let sealed = UnsafeMutableRawBufferPointer(buffer)
            sealed[0] = generation
            sealed.storeBytes(of: nonce.high.bigEndian, toByteOffset: 1, as: UInt32.self)
            sealed.storeBytes(of: nonce.low.bigEndian, toByteOffset: 5, as: UInt64.self)
            let nonceBytes = UnsafeRawBufferPointer(rebasing: sealed[1..<Self.headerByteCount])
            let out = UnsafeMutableRawBufferPointer(rebasing: sealed[Self.headerByteCount...])
            try Self.withContext(key: key, database: database) { context in
                switch dataKey {
                case .scheduled(let schedule):
                    guard schedule.seal(value, nonce: nonceBytes, authenticating: context, into: out) else {
                        throw JournalError(.storage, "AES-GCM failed to seal a value of \(database)")
                    }
                case .swiftCrypto(let symmetricKey):
                    let box = try AES.GCM.seal(
                        value, using: symmetricKey, nonce: try AES.GCM.Nonce(data: nonceBytes), authenticating: context)
                    // `combined` is nonce, ciphertext and tag in one buffer: one copy, where
                    // asking for the ciphertext and the tag makes a buffer of each.
                    guard let combined = box.combined else { preconditionFailure("a 12-byte nonce always combines") }
                    out.copyBytes(from: combined.dropFirst(AESGCMKey.nonceByteCount))
                }
            }
            count = value.count + Self.overheadByteCount
        }
    }

    package func open(_ sealed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String) throws -> [UInt8]
    {
        try withPlaintext(of: sealed, key: key, database: database) { Array($0) }
    }

    /// Hands `body` the plaintext in a temporary buffer, without copying it into an array.
    package func withOpened<T>(
        _ sealed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String,
        _ body: (UnsafeRawBufferPointer) throws -> T
    ) throws -> T {
        try withPlaintext(of: sealed, key: key, database: database, body)
    }

    /// Calls `body` with the authenticated plaintext of `sealed`, valid only during `body`.
    ///
    /// - Parameter noting: applied to the ``JournalError/Code/tampered`` error of a value that
    ///   does not open, never to an error of `body`: how a caller adds what it does about it.
    /// - Throws: ``JournalError/Code/tampered`` (as `noting` returns it), or what `body` throws.
    func withPlaintext<T>(
        of sealed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String,
        noting: (JournalError) -> JournalError = { $0 }, _ body: (UnsafeRawBufferPointer) throws -> T
    ) throws -> T {
        if sealed.count == Self.emptyValueByteCount {
            do {
                try authenticateEmptyValue(sealed, key: key, database: database)
            } catch let error as JournalError {
                throw noting(error)
            }
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        let length = max(sealed.count - Self.overheadByteCount, 0)
        return try withUnsafeTemporaryAllocation(byteCount: length, alignment: 1) { plaintext in
            do {
                try decrypt(sealed, key: key, database: database, into: plaintext)
            } catch let error as JournalError {
                throw noting(error)
            }
            return try body(UnsafeRawBufferPointer(plaintext))
        }
    }

    /// Checks the tag of a sealed empty value, or throws ``JournalError/Code/tampered``.
    private func authenticateEmptyValue(_ sealed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String)
        throws
    {
        guard let mac = keys.withLock({ $0?.emptyValueMACs[sealed[0]] }) else {
            throw tampered(
                key: key, database: database,
                "is sealed under key generation \(sealed[0]), which the store does not hold")
        }
        let expected = Self.tag(mac, generation: sealed[0], key: key, database: database)
        // Constant time: every byte compared whatever the first difference.
        let difference = zip(expected, sealed).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) }
        guard difference == 0 else { throw tampered(key: key, database: database, "failed authentication") }
    }

    /// Writes the plaintext of a sealed value to `plaintext`, which holds exactly its length,
    /// or throws ``JournalError/Code/tampered``.
    private func decrypt(
        _ sealed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String,
        into plaintext: UnsafeMutableRawBufferPointer
    ) throws {
        guard sealed.count >= Self.overheadByteCount else {
            throw tampered(key: key, database: database, "is too short to be sealed")
        }
        guard let dataKey = keys.withLock({ $0.flatMap { Self.dataKey(sealed[0], in: $0) } }) else {
            throw tampered(
                key: key, database: database,
                "is sealed under key generation \(sealed[0]), which the store does not hold")
        }
        let nonce = UnsafeRawBufferPointer(rebasing: sealed[1..<Self.headerByteCount])
        let ciphertextAndTag = UnsafeRawBufferPointer(rebasing: sealed[Self.headerByteCount...])
        do {
            try Self.withContext(key: key, database: database) { context in
                switch dataKey {
                case .scheduled(let schedule):
                    guard schedule.open(ciphertextAndTag, nonce: nonce, authenticating: context, into: plaintext) else {
                        throw tampered(key: key, database: database, "failed authentication")
                    }
                case .swiftCrypto(let symmetricKey):
                    let box = try AES.GCM.SealedBox(combined: UnsafeRawBufferPointer(rebasing: sealed[1...]))
                    plaintext.copyBytes(from: try AES.GCM.open(box, using: symmetricKey, authenticating: context))
                }
            }
        } catch let error as JournalError {
            throw error
        } catch {
            throw tampered(key: key, database: database, "failed authentication", cause: error)
        }
    }

    /// The next nonce of this cipher's run: never used by it before.
    private func takeNonce() -> (high: UInt32, low: UInt64) {
        nextNonce.withLock { counter in
            defer {
                counter.low &+= 1
                if counter.low == 0 { counter.high &+= 1 }
            }
            return counter
        }
    }

    /// HMAC-SHA256 under the store's index key, cut to 16 bytes: equal values still match,
    /// and nobody without the key can test a guess against the digest.
    package func keyedDigest(of bytes: [UInt8]) -> [UInt8] {
        guard let indexKey = keys.withLock({ $0?.ring.indexKey }) else { return [] }
        return Array(HMAC<SHA256>.authenticationCode(for: bytes, using: indexKey).prefix(16))
    }

    /// The generation `sealed` was sealed under.
    static func generation(of sealed: UnsafeRawBufferPointer) -> UInt8? {
        sealed.first
    }

    /// A sealed empty value: `generation`, then the SipHash of its database's name, a zero byte
    /// and its key.
    private static func tag(_ mac: SipHash, generation: UInt8, key: UnsafeRawBufferPointer, database: String) -> [UInt8]
    {
        var name = database
        let tag = name.withUTF8 { mac.hash(UnsafeRawBufferPointer($0), separator: 0, key) }.littleEndian
        return [UInt8](unsafeUninitializedCapacity: emptyValueByteCount) { buffer, count in
            buffer[0] = generation
            UnsafeMutableRawBufferPointer(buffer).storeBytes(of: tag, toByteOffset: 1, as: UInt64.self)
            count = emptyValueByteCount
        }
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
