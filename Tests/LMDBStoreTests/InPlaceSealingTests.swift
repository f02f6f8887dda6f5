import Foundation
import LMDBStore
import SyncTesting
import Testing

/// A sealer that seals in place: the value, then its key's first byte and a marker. Opening
/// checks both, so a value written anywhere but in its own place fails.
private struct TrailerSealer: InPlaceValueSealer {
    struct Mismatch: Error {}

    func seals(databaseNamed name: String) -> Bool { name == "sealed" }

    func sealedByteCount(forValueByteCount count: Int) -> Int { count + 2 }

    func seal(
        _ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String,
        into output: UnsafeMutableRawBufferPointer
    ) {
        output.copyMemory(from: value)
        output[value.count] = key.first ?? 0
        output[value.count + 1] = 0xAB
    }

    func seal(_ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String) throws -> [UInt8] {
        Array(value) + [key.first ?? 0, 0xAB]
    }

    func open(_ sealed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String) throws -> [UInt8] {
        guard sealed.count >= 2, sealed[sealed.count - 2] == key.first ?? 0, sealed[sealed.count - 1] == 0xAB else {
            throw Mismatch()
        }
        return Array(sealed.dropLast(2))
    }

    func keyedDigest(of bytes: [UInt8]) -> [UInt8] { bytes }
}

@Suite struct InPlaceSealingTests {
    /// Values sealed in place are the bytes `seal` gives, whatever their size (an overflow
    /// page too), appended or replacing another, and open again as they were.
    @Test func aPutSealsIntoTheReservedSpaceWhatSealGives() throws {
        let directory = try TemporaryDirectory("in-place")
        defer { directory.remove() }
        let values: [[UInt8]] = [[], [7], Array(repeating: 3, count: 100), (0..<9000).map { UInt8($0 & 0xFF) }]
        let environment = try Environment(directory: directory.url, sealer: TrailerSealer())
        let sealed = try environment.database(named: "sealed")
        try environment.write { transaction in
            for (index, value) in values.enumerated() {
                try transaction.put(sealed, key: [UInt8(index + 1)], value: [9, 9, 9], options: .append)
                try transaction.put(sealed, key: [UInt8(index + 1)], value: value)
            }
        }
        let (read, stored) = try environment.read { transaction in
            (
                try values.indices.map { try transaction.get(sealed, key: [UInt8($0 + 1)]) },
                try values.indices.map { try transaction.get(sealed.unsealed, key: [UInt8($0 + 1)]) }
            )
        }
        #expect(read == values)
        let expected = try values.enumerated().map { index, value in
            try value.withUnsafeBytes { value in
                try [UInt8(index + 1)].withUnsafeBytes { try TrailerSealer().seal(value, key: $0, database: "sealed") }
            }
        }
        #expect(stored == expected)
    }

    /// A value written by a closure lands in the page as written, unsealed; in a sealed
    /// database it is sealed as any put's, and the closure's result is returned either way.
    @Test func aPutThatWritesItsValueStoresWhatItWrote() throws {
        let directory = try TemporaryDirectory("in-place-writer")
        defer { directory.remove() }
        let environment = try Environment(directory: directory.url, sealer: TrailerSealer())
        let plain = try environment.database(named: "plain")
        let sealed = try environment.database(named: "sealed")
        let value = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let results = try environment.write { transaction in
            try [plain, sealed].map { database in
                try transaction.put(database, key: [1], byteCount: value.count) { output in
                    output.copyBytes(from: value)
                    return output.count
                }
            }
        }
        #expect(results == [value.count, value.count])
        let (readPlain, readSealed, storedSealed) = try environment.read { transaction in
            (
                try transaction.get(plain, key: [1]), try transaction.get(sealed, key: [1]),
                try transaction.get(sealed.unsealed, key: [1])
            )
        }
        #expect(readPlain == value)
        #expect(readSealed == value)
        #expect(storedSealed == value + [1, 0xAB])
    }

    /// A walk of keys alone never opens a value: a value that fails to open is not seen, where
    /// a walk of entries reports it.
    @Test func aKeyWalkVisitsEveryKeyWithoutOpeningTheValues() throws {
        let directory = try TemporaryDirectory("key-walk")
        defer { directory.remove() }
        let environment = try Environment(directory: directory.url, sealer: TrailerSealer())
        let sealed = try environment.database(named: "sealed")
        try environment.write { transaction in
            for key in UInt8(1)...5 { try transaction.put(sealed, key: [key], value: [key]) }
            // Stored without its seal, so opening it fails.
            try transaction.put(sealed.unsealed, key: [3], value: [3])
        }
        let keys = try environment.read { transaction in
            try transaction.withCursor(sealed) { cursor in
                var keys: [[UInt8]] = []
                try cursor.forEachKeyInPlace(in: KeyRange(from: [2], to: [4], includesUpperBound: true)) { key in
                    keys.append(Array(key))
                    return true
                }
                return keys
            }
        }
        #expect(keys == [[2], [3], [4]])
        #expect(throws: (any Error).self) {
            try environment.read { transaction in
                try transaction.withCursor(sealed) { cursor in try cursor.forEachInPlace { _, _ in true } }
            }
        }
    }
}
