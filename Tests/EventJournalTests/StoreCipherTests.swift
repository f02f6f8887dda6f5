import EventJournal
import Testing

/// A store's cipher with AES-GCM key schedules (decision 0017) and without them (swift-crypto
/// alone, as on Apple platforms) read each other's values: a store moves between platforms.
@Suite struct StoreCipherTests {
    static let values: [[UInt8]] = [[], [7], Array("{\"Name\":\"Acme\"}".utf8), [UInt8](repeating: 0x5A, count: 5_000)]

    static func ciphers() -> (scheduled: StoreCipher, swiftCrypto: StoreCipher) {
        let ring = StoreKeyRing.generate()
        let scheduled = StoreCipher()
        let swiftCrypto = StoreCipher(implementation: .swiftCrypto)
        scheduled.keyRing = ring
        swiftCrypto.keyRing = ring
        return (scheduled, swiftCrypto)
    }

    static func seal(_ value: [UInt8], with cipher: StoreCipher, key: [UInt8], database: String) throws -> [UInt8] {
        try value.withUnsafeBytes { value in
            try key.withUnsafeBytes { try cipher.seal(value, key: $0, database: database) }
        }
    }

    static func open(_ sealed: [UInt8], with cipher: StoreCipher, key: [UInt8], database: String) throws -> [UInt8] {
        try sealed.withUnsafeBytes { sealed in
            try key.withUnsafeBytes { try cipher.open(sealed, key: $0, database: database) }
        }
    }

    @Test func valuesSealedWithKeySchedulesOpenWithSwiftCryptoAndTheOtherWayRound() throws {
        let (scheduled, swiftCrypto) = Self.ciphers()
        let key: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 42]
        for value in Self.values {
            for (sealer, opener) in [(scheduled, swiftCrypto), (swiftCrypto, scheduled), (scheduled, scheduled)] {
                let sealed = try Self.seal(value, with: sealer, key: key, database: "projections.records")
                #expect(sealed.count == value.count + (value.isEmpty ? 9 : 29))
                #expect(try Self.open(sealed, with: opener, key: key, database: "projections.records") == value)
                let zeroCopy = try sealed.withUnsafeBytes { sealed in
                    try key.withUnsafeBytes {
                        try opener.withOpened(sealed, key: $0, database: "projections.records") { Array($0) }
                    }
                }
                #expect(zeroCopy == value)
            }
        }
    }

    @Test func aValueOpenedUnderAnotherKeyOrDatabaseOrChangedIsTamperedWithEitherCipher() throws {
        let (scheduled, swiftCrypto) = Self.ciphers()
        let key: [UInt8] = [1, 2, 3]
        for value in Self.values {
            let sealed = try Self.seal(value, with: scheduled, key: key, database: "projections.records")
            var changed = sealed
            changed[changed.count - 1] ^= 0x01
            for opener in [scheduled, swiftCrypto] {
                for (bytes, key, database) in [
                    (sealed, [1, 2, 4], "projections.records"), (sealed, key, "projections.index"),
                    (changed, key, "projections.records"),
                ] {
                    let error = #expect(throws: JournalError.self) {
                        try Self.open(bytes, with: opener, key: key, database: database)
                    }
                    #expect(error?.code == .tampered)
                }
            }
        }
    }

    @Test func everySealedValueOfOneCipherHasItsOwnNonce() throws {
        let (scheduled, _) = Self.ciphers()
        let sealed = try (0..<100).map { _ in
            try Self.seal([1, 2, 3], with: scheduled, key: [9], database: "journal.entries")
        }
        #expect(Set(sealed.map { Array($0[1..<13]) }).count == 100)
        #expect(Set(sealed).count == 100)
    }
}
