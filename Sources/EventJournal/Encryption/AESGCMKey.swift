import CAESGCM
import Crypto

/// A data key's AES-256-GCM key schedule, made once and used for every value sealed or opened
/// under the key (decision 0017).
///
/// swift-crypto's `AES.GCM.seal` expands the key and its GHASH tables again at every call and
/// returns new `Data` buffers; this seals into the caller's buffer. It exists where swift-crypto
/// links BoringSSL (Linux, Android, Windows); elsewhere ``init(_:)`` answers `nil` and
/// ``StoreCipher`` seals with swift-crypto. Both produce the same bytes for the same key,
/// nonce and input: AES-GCM is one algorithm, so a store moves between them freely.
package final class AESGCMKey: @unchecked Sendable {
    // Unchecked: the schedule is written once, here, and only read after; BoringSSL allows
    // any number of seals and opens with one context at once.
    private let schedule: OpaquePointer

    /// Whether this build links an implementation: where it does not, every key is `nil`.
    package static var isAvailable: Bool { caesgcm_available() == 1 }

    /// The bytes of a nonce.
    package static let nonceByteCount = Int(CAESGCM_NONCE_BYTES)
    /// The bytes of a tag.
    package static let tagByteCount = Int(CAESGCM_TAG_BYTES)

    /// The schedule of the key's bytes, or `nil` where this build links no implementation or
    /// the key is not 32 bytes long.
    package init?(_ key: UnsafeRawBufferPointer) {
        guard let made = caesgcm_key_new(Self.bytes(key), key.count) else { return nil }
        schedule = made
    }

    /// The schedule of `key`, or `nil` as ``init(_:)-(UnsafeRawBufferPointer)`` says.
    init?(_ key: SymmetricKey) {
        guard let made = key.withUnsafeBytes({ caesgcm_key_new(Self.bytes($0), $0.count) }) else { return nil }
        schedule = made
    }

    deinit {
        caesgcm_key_free(schedule)
    }

    /// Writes the ciphertext of `plaintext` and then its tag to `out`, which holds exactly
    /// `plaintext.count + tagByteCount` bytes; `false` when the implementation failed.
    package func seal(
        _ plaintext: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
        authenticating additional: UnsafeRawBufferPointer,
        into out: UnsafeMutableRawBufferPointer
    ) -> Bool {
        guard nonce.count == Self.nonceByteCount, out.count == plaintext.count + Self.tagByteCount else { return false }
        return caesgcm_seal(
            schedule, Self.bytes(out), Self.bytes(nonce), Self.bytes(plaintext), plaintext.count,
            Self.bytes(additional), additional.count) == 1
    }

    /// Writes the plaintext of `sealed` (ciphertext, then tag) to `out`, which holds exactly
    /// `sealed.count - tagByteCount` bytes; `false`, with `out` cleared, when the tag does not
    /// authenticate the ciphertext and `additional` under this key.
    package func open(
        _ sealed: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
        authenticating additional: UnsafeRawBufferPointer,
        into out: UnsafeMutableRawBufferPointer
    ) -> Bool {
        guard nonce.count == Self.nonceByteCount, sealed.count >= Self.tagByteCount,
            out.count == sealed.count - Self.tagByteCount
        else { return false }
        return caesgcm_open(
            schedule, Self.bytes(out), Self.bytes(nonce), Self.bytes(sealed), sealed.count, Self.bytes(additional),
            additional.count) == 1
    }

    private static func bytes(_ buffer: UnsafeRawBufferPointer) -> UnsafePointer<UInt8>? {
        buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
    }

    private static func bytes(_ buffer: UnsafeMutableRawBufferPointer) -> UnsafeMutablePointer<UInt8>? {
        buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
    }
}
