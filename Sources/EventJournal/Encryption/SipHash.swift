import Crypto

/// SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed pseudorandom function built for short
/// inputs, here the MAC of empty sealed values (index entries, whose meaning is all in their
/// key). A 64-bit tag under a 128-bit secret key: a forgery succeeds with probability 2^-64 per
/// try, and the key never leaves the process. swift-crypto's HMAC costs several times more per
/// call, and an ingest writes four such values per record.
package struct SipHash: Sendable {
    private let key0: UInt64
    private let key1: UInt64

    /// The MAC of empty sealed values under `dataKey`: keyed with 16 bytes derived from it
    /// (HKDF-SHA256, info `syncjournal.empty-value`).
    init(derivedFrom dataKey: SymmetricKey) {
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: dataKey, info: Array("syncjournal.empty-value".utf8), outputByteCount: 16)
        self.init(key: key.withUnsafeBytes { Array($0) })
    }

    /// A function keyed with the first 16 bytes of `key`, read little-endian.
    package init(key: some Collection<UInt8>) {
        precondition(key.count >= 16, "SipHash needs a 16-byte key")
        let bytes = Array(key.prefix(16))
        key0 = Self.littleEndian(bytes, 0)
        key1 = Self.littleEndian(bytes, 8)
    }

    /// The 64-bit SipHash-2-4 of `message`.
    package func hash(_ message: UnsafeRawBufferPointer) -> UInt64 {
        var absorber = Absorber(key0: key0, key1: key1)
        absorber.absorb(message)
        return absorber.finish()
    }

    /// The 64-bit SipHash-2-4 of `first`, the byte `separator`, then `second`, read as one message.
    package func hash(_ first: UnsafeRawBufferPointer, separator: UInt8, _ second: UnsafeRawBufferPointer) -> UInt64 {
        var absorber = Absorber(key0: key0, key1: key1)
        absorber.absorb(first)
        absorber.absorb(separator)
        absorber.absorb(second)
        return absorber.finish()
    }

    /// The state of one hash: bytes are taken in eight at a time.
    private struct Absorber {
        var state: (UInt64, UInt64, UInt64, UInt64)
        var word: UInt64 = 0
        var length = 0

        init(key0: UInt64, key1: UInt64) {
            state = (
                key0 ^ 0x736f_6d65_7073_6575, key1 ^ 0x646f_7261_6e64_6f6d, key0 ^ 0x6c79_6765_6e65_7261,
                key1 ^ 0x7465_6462_7974_6573
            )
        }

        mutating func absorb(_ bytes: UnsafeRawBufferPointer) {
            for byte in bytes { absorb(byte) }
        }

        mutating func absorb(_ byte: UInt8) {
            word |= UInt64(byte) << (8 * UInt64(length % 8))
            length += 1
            if length % 8 == 0 {
                SipHash.compress(&state, word)
                word = 0
            }
        }

        mutating func finish() -> UInt64 {
            SipHash.compress(&state, word | UInt64(truncatingIfNeeded: length) << 56)
            state.2 ^= 0xFF
            for _ in 0..<4 { SipHash.round(&state) }
            return state.0 ^ state.1 ^ state.2 ^ state.3
        }
    }

    fileprivate static func compress(_ state: inout (UInt64, UInt64, UInt64, UInt64), _ word: UInt64) {
        state.3 ^= word
        round(&state)
        round(&state)
        state.0 ^= word
    }

    fileprivate static func round(_ state: inout (UInt64, UInt64, UInt64, UInt64)) {
        state.0 &+= state.1
        state.1 = rotate(state.1, 13) ^ state.0
        state.0 = rotate(state.0, 32)
        state.2 &+= state.3
        state.3 = rotate(state.3, 16) ^ state.2
        state.0 &+= state.3
        state.3 = rotate(state.3, 21) ^ state.0
        state.2 &+= state.1
        state.1 = rotate(state.1, 17) ^ state.2
        state.2 = rotate(state.2, 32)
    }

    private static func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
        value << count | value >> (64 - count)
    }

    private static func littleEndian(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }
}
