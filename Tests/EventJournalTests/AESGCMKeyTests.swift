import Crypto
import EventJournal
import Foundation
import Testing

/// The AES-GCM key schedules sealing uses where swift-crypto links BoringSSL (decision 0017):
/// they must write exactly the bytes swift-crypto writes, since a store sealed by one is opened
/// by the other when it moves between platforms.
@Suite struct AESGCMKeyTests {
    static let lengths = [1, 15, 16, 17, 255, 1_024, 70_000]

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    static func schedule(_ key: SymmetricKey) throws -> AESGCMKey {
        try #require(key.withUnsafeBytes { AESGCMKey($0) })
    }

    /// Ciphertext and tag from a schedule, or `nil` when it refused.
    static func seal(_ plaintext: [UInt8], with schedule: AESGCMKey, nonce: [UInt8], additional: [UInt8]) -> [UInt8]? {
        var sealed = [UInt8](repeating: 0, count: plaintext.count + AESGCMKey.tagByteCount)
        let done = sealed.withUnsafeMutableBytes { out in
            plaintext.withUnsafeBytes { plaintext in
                nonce.withUnsafeBytes { nonce in
                    additional.withUnsafeBytes { schedule.seal(plaintext, nonce: nonce, authenticating: $0, into: out) }
                }
            }
        }
        return done ? sealed : nil
    }

    /// The plaintext a schedule opens, and whether it authenticated.
    static func open(_ sealed: [UInt8], with schedule: AESGCMKey, nonce: [UInt8], additional: [UInt8]) -> (
        [UInt8], Bool
    ) {
        var plaintext = [UInt8](repeating: 0xA5, count: max(sealed.count - AESGCMKey.tagByteCount, 0))
        let opened = plaintext.withUnsafeMutableBytes { out in
            sealed.withUnsafeBytes { sealed in
                nonce.withUnsafeBytes { nonce in
                    additional.withUnsafeBytes { schedule.open(sealed, nonce: nonce, authenticating: $0, into: out) }
                }
            }
        }
        return (plaintext, opened)
    }

    @Test func linuxBuildsScheduleKeysWithTheBoringSSLSwiftCryptoLinks() {
        #if os(Linux)
            #expect(AESGCMKey.isAvailable)
        #endif
        #expect(AESGCMKey.isAvailable == (SymmetricKey(size: .bits256).withUnsafeBytes { AESGCMKey($0) } != nil))
    }

    @Test(arguments: lengths)
    func aScheduleSealsTheSameBytesAsSwiftCryptoAndOpensWhatItSeals(length: Int) throws {
        let key = SymmetricKey(size: .bits256)
        let schedule = try Self.schedule(key)
        let plaintext = Self.randomBytes(length)
        let nonce = Self.randomBytes(AESGCMKey.nonceByteCount)
        let additional = Array("projections.records\u{0}".utf8) + Self.randomBytes(12)

        let expected = try AES.GCM.seal(
            plaintext, using: key, nonce: try AES.GCM.Nonce(data: nonce), authenticating: additional)
        let sealed = try #require(Self.seal(plaintext, with: schedule, nonce: nonce, additional: additional))
        #expect(sealed == Array(expected.ciphertext) + Array(expected.tag))

        let (opened, authentic) = Self.open(sealed, with: schedule, nonce: nonce, additional: additional)
        #expect(authentic)
        #expect(opened == plaintext)
        let box = try AES.GCM.SealedBox(
            nonce: try AES.GCM.Nonce(data: nonce), ciphertext: sealed.dropLast(16), tag: sealed.suffix(16))
        #expect(Array(try AES.GCM.open(box, using: key, authenticating: additional)) == plaintext)
    }

    @Test func aScheduleRefusesAChangedByteNonceOrAuthenticatedDataAndLeavesNoPlaintext() throws {
        let key = SymmetricKey(size: .bits256)
        let schedule = try Self.schedule(key)
        let plaintext = Self.randomBytes(300)
        let nonce = Self.randomBytes(AESGCMKey.nonceByteCount)
        let additional = Array("journal.entries\u{0}12345678".utf8)
        let sealed = try #require(Self.seal(plaintext, with: schedule, nonce: nonce, additional: additional))

        var changedCiphertext = sealed
        changedCiphertext[7] ^= 0x01
        var changedTag = sealed
        changedTag[sealed.count - 1] ^= 0x80
        var changedNonce = nonce
        changedNonce[0] ^= 0x01
        let otherSchedule = try Self.schedule(SymmetricKey(size: .bits256))
        let attempts = [
            Self.open(changedCiphertext, with: schedule, nonce: nonce, additional: additional),
            Self.open(changedTag, with: schedule, nonce: nonce, additional: additional),
            Self.open(sealed, with: schedule, nonce: changedNonce, additional: additional),
            Self.open(sealed, with: schedule, nonce: nonce, additional: additional + [0]),
            Self.open(sealed, with: otherSchedule, nonce: nonce, additional: additional),
        ]
        for (output, authentic) in attempts {
            #expect(!authentic)
            #expect(output.allSatisfy { $0 == 0 })
        }
        #expect(Self.open(Array(sealed.prefix(15)), with: schedule, nonce: nonce, additional: additional).1 == false)
    }

    @Test func aScheduleRefusesAKeyThatIsNot256Bits() {
        #expect(SymmetricKey(size: .bits128).withUnsafeBytes { AESGCMKey($0) } == nil)
        #expect([UInt8](repeating: 1, count: 33).withUnsafeBytes { AESGCMKey($0) } == nil)
    }

    // MARK: - The known-answer test (decision 0020)

    /// A copy of the linked shim with one of its answers changed.
    static func linkedShim(
        seal: @escaping @Sendable ([UInt8]?) -> [UInt8]? = { $0 },
        open: @escaping @Sendable ([UInt8]?) -> [UInt8]? = { $0 }
    ) -> AESGCMKey.Shim {
        let linked = AESGCMKey.Shim.linked
        return AESGCMKey.Shim(
            seal: { seal(linked.seal($0, $1, $2, $3)) }, open: { open(linked.open($0, $1, $2, $3)) })
    }

    @Test func theKnownAnswerIsSwiftCryptosAnswer() throws {
        let vector = AESGCMKey.KnownAnswer.testCase16
        let box = try AES.GCM.seal(
            vector.plaintext, using: SymmetricKey(data: vector.key), nonce: try AES.GCM.Nonce(data: vector.nonce),
            authenticating: vector.additional)
        #expect(Array(box.ciphertext) + Array(box.tag) == vector.sealed)
    }

    @Test func theLinkedShimGivesTheKnownAnswerSoStoreCiphersUseKeySchedules() {
        #expect(AESGCMKey.active == AESGCMKey.implementation(checking: .linked))
        #expect(AESGCMKey.active == (AESGCMKey.isAvailable ? .keySchedules : .swiftCrypto))
        let cipher = StoreCipher()
        cipher.keyRing = StoreKeyRing.generate()
        #expect(cipher.implementation == AESGCMKey.active)
        #expect(cipher.usesKeySchedules == AESGCMKey.isAvailable)
    }

    /// Shims that seal one wrong bit, accept a forged tag, or refuse to seal.
    static let wrongShims: [(String, AESGCMKey.Shim)] = [
        (
            "seals a wrong bit",
            linkedShim(seal: { sealed in
                sealed.map {
                    var bytes = $0
                    bytes[0] ^= 0x01
                    return bytes
                }
            })
        ),
        (
            "accepts a forged tag",
            linkedShim(open: { $0 ?? Array(AESGCMKey.KnownAnswer.testCase16.plaintext) })
        ),
        ("refuses to seal", linkedShim(seal: { _ in nil })),
    ]

    @Test(arguments: wrongShims.indices)
    func aShimThatAnswersWrongIsNeverUsedAndItsFallbackReadsAndWritesTheSameValues(shim: Int) throws {
        let (name, wrong) = Self.wrongShims[shim]
        let chosen = AESGCMKey.implementation(checking: wrong)
        #expect(chosen == .swiftCrypto, "\(name)")
        let ring = StoreKeyRing.generate()
        let fallback = StoreCipher(implementation: chosen)
        let scheduled = StoreCipher(implementation: AESGCMKey.active)
        fallback.keyRing = ring
        scheduled.keyRing = ring
        #expect(!fallback.usesKeySchedules, "\(name)")
        let key: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 49]
        for value in StoreCipherTests.values {
            for (sealer, opener) in [(fallback, scheduled), (scheduled, fallback)] {
                let sealed = try StoreCipherTests.seal(value, with: sealer, key: key, database: "journal.entries")
                #expect(try StoreCipherTests.open(sealed, with: opener, key: key, database: "journal.entries") == value)
            }
        }
    }
}
