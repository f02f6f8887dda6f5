// CAESGCM declares swift-crypto's internal BoringSSL functions by hand (decision 0017). A
// swift-crypto release that renamed them fails the link; one that kept the names but changed
// what they take or do would seal wrong bytes, or accept what it should refuse, at run time,
// and nothing else would notice until a store sealed here failed to open somewhere else. So
// the shim answers a known-answer test once, before the first key is scheduled, and a shim
// that answers wrong is never used: every seal and open goes through swift-crypto's public
// `AES.GCM` instead (decision 0020).
extension AESGCMKey {
    /// Which AES-GCM a ``StoreCipher`` seals and opens with. Both write the same bytes.
    package enum Implementation: Sendable, Hashable {
        /// Key schedules made once per data key, over the BoringSSL swift-crypto links.
        case keySchedules
        /// swift-crypto's public `AES.GCM`, which sets the key up again at every call.
        case swiftCrypto
    }

    /// An AES-256-GCM to check against the known answer: the C shim this build links
    /// (``linked``), or in tests one that answers wrong.
    package struct Shim: Sendable {
        /// Ciphertext then tag of `plaintext`, or `nil` when the implementation refused.
        package var seal:
            @Sendable (_ key: [UInt8], _ nonce: [UInt8], _ plaintext: [UInt8], _ additional: [UInt8]) -> [UInt8]?
        /// The plaintext of `sealed` (ciphertext then tag), or `nil` when the tag does not
        /// authenticate it.
        package var open:
            @Sendable (_ key: [UInt8], _ nonce: [UInt8], _ sealed: [UInt8], _ additional: [UInt8]) -> [UInt8]?

        /// A shim made of `seal` and `open`.
        package init(
            seal:
                @escaping @Sendable (_ key: [UInt8], _ nonce: [UInt8], _ plaintext: [UInt8], _ additional: [UInt8])
                -> [UInt8]?,
            open:
                @escaping @Sendable (_ key: [UInt8], _ nonce: [UInt8], _ sealed: [UInt8], _ additional: [UInt8])
                -> [UInt8]?
        ) {
            self.seal = seal
            self.open = open
        }

        /// The C shim this build links, through a schedule of the key made for each call.
        package static let linked = Shim(
            seal: { key, nonce, plaintext, additional in
                scheduled(key, nonce, plaintext, additional, outputCount: plaintext.count + tagByteCount) {
                    $0.seal($1, nonce: $2, authenticating: $3, into: $4)
                }
            },
            open: { key, nonce, sealed, additional in
                guard sealed.count >= tagByteCount else { return nil }
                return scheduled(key, nonce, sealed, additional, outputCount: sealed.count - tagByteCount) {
                    $0.open($1, nonce: $2, authenticating: $3, into: $4)
                }
            })

        /// The `outputCount` bytes `operation` writes with a schedule of `key`, or `nil` when
        /// there is no schedule or `operation` fails.
        private static func scheduled(
            _ key: [UInt8], _ nonce: [UInt8], _ input: [UInt8], _ additional: [UInt8], outputCount: Int,
            _ operation: (
                AESGCMKey, UnsafeRawBufferPointer, UnsafeRawBufferPointer, UnsafeRawBufferPointer,
                UnsafeMutableRawBufferPointer
            ) -> Bool
        ) -> [UInt8]? {
            guard let schedule = key.withUnsafeBytes({ AESGCMKey($0) }) else { return nil }
            var output = [UInt8](repeating: 0, count: outputCount)
            let done = output.withUnsafeMutableBytes { output in
                input.withUnsafeBytes { input in
                    nonce.withUnsafeBytes { nonce in
                        additional.withUnsafeBytes { operation(schedule, input, nonce, $0, output) }
                    }
                }
            }
            return done ? output : nil
        }
    }

    /// The AES-GCM stores seal with in this process: key schedules when the build links the
    /// shim and it gives the known answer, else swift-crypto. Checked once, at first use.
    package static let active: Implementation = implementation(checking: .linked)

    /// Key schedules when this build links the C shim and `shim` gives the known answer (it
    /// seals the vector's plaintext to its ciphertext and tag, opens them back, and refuses
    /// them with one bit of the tag changed); swift-crypto otherwise.
    package static func implementation(checking shim: Shim) -> Implementation {
        guard isAvailable else { return .swiftCrypto }
        let vector = KnownAnswer.testCase16
        guard shim.seal(vector.key, vector.nonce, vector.plaintext, vector.additional) == vector.sealed,
            shim.open(vector.key, vector.nonce, vector.sealed, vector.additional) == vector.plaintext
        else { return .swiftCrypto }
        var forged = vector.sealed
        forged[forged.count - 1] ^= 0x01
        return shim.open(vector.key, vector.nonce, forged, vector.additional) == nil ? .keySchedules : .swiftCrypto
    }

    /// One AES-256-GCM input and the ciphertext and tag it seals to.
    package struct KnownAnswer: Sendable {
        /// The 256-bit key.
        package var key: [UInt8]
        /// The 96-bit nonce.
        package var nonce: [UInt8]
        /// The plaintext.
        package var plaintext: [UInt8]
        /// The additional authenticated data.
        package var additional: [UInt8]
        /// The ciphertext, then the 16-byte tag.
        package var sealed: [UInt8]

        /// Test Case 16 of McGrew and Viega, "The Galois/Counter Mode of Operation (GCM)",
        /// the AES-256 case with a 96-bit nonce and additional data that NIST's GCM validation
        /// lists too: a 60-byte plaintext, so the last block is partial, and 20 bytes of
        /// additional data, also partial.
        package static let testCase16 = KnownAnswer(
            key: bytes("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"),
            nonce: bytes("cafebabefacedbaddecaf888"),
            plaintext: bytes(
                "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
                    + "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"),
            additional: bytes("feedfacedeadbeeffeedfacedeadbeefabaddad2"),
            sealed: bytes(
                "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
                    + "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"
                    + "76fc6ece0f4e1768cddf8853bb2d551b"))

        /// The bytes of lowercase hexadecimal `text`; only the literals above are read.
        private static func bytes(_ text: String) -> [UInt8] {
            let digits = Array(text.utf8).map { $0 <= UInt8(ascii: "9") ? $0 - UInt8(ascii: "0") : $0 - 87 }
            precondition(digits.count.isMultiple(of: 2), "a known answer is whole bytes")
            return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
        }
    }
}
