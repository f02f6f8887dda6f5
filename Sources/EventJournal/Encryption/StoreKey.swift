import Crypto
public import Foundation

/// The 256-bit key an app encrypts a store with (see ``JournalOptions/encryption``).
///
/// It never encrypts data itself: it wraps the store's own random keys, which are kept in the
/// journal (decision 0006). So a store is re-keyed without the app key ever touching a record,
/// and a wrong key is told apart from damage at open. Keep it where the platform keeps
/// secrets (the keychain on Apple platforms); `msync` reads it from a file or an environment
/// variable.
public struct StoreKey: Sendable {
    /// How many bytes a key has.
    public static let byteCount = 32

    let symmetricKey: SymmetricKey

    /// A key of exactly 32 bytes.
    /// - Throws: ``JournalError/Code/invalidKey`` for any other length.
    public init(bytes: some ContiguousBytes) throws {
        let count = bytes.withUnsafeBytes { $0.count }
        guard count == Self.byteCount else {
            throw JournalError(
                .invalidKey, "a store key has \(Self.byteCount) bytes (256 bits), not \(count)")
        }
        symmetricKey = SymmetricKey(data: bytes)
    }

    /// A key written as 64 hexadecimal digits; white space around them is ignored.
    /// - Throws: ``JournalError/Code/invalidKey`` when `hex` is anything else.
    public init(hex: String) throws {
        let digits = Array(hex.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        guard digits.count == Self.byteCount * 2 else {
            throw JournalError(
                .invalidKey, "a store key is \(Self.byteCount * 2) hexadecimal digits, not \(digits.count) characters")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.byteCount)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else {
                throw JournalError(.invalidKey, "a store key holds only hexadecimal digits (0-9, a-f)")
            }
            bytes.append(high << 4 | low)
        }
        try self.init(bytes: bytes)
    }

    /// The key in the file at `url`: 32 raw bytes, or 64 hexadecimal digits.
    /// - Throws: ``JournalError/Code/invalidKey`` when the file holds neither, or cannot be read.
    public init(contentsOf url: URL) throws {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw JournalError(.invalidKey, "cannot read a store key from \(url.path)")
        }
        if data.count == Self.byteCount {
            try self.init(bytes: data)
        } else {
            try self.init(hex: String(decoding: data, as: UTF8.self))
        }
    }

    /// A new random key from the system's cryptographically secure generator, as 64 hexadecimal
    /// digits (what `msync generate-key` prints).
    ///
    /// Keys must never come from a seeded generator, so this one is not injectable.
    public static func generateHex() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Hexadecimal.string($0) }
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
