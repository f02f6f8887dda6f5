import LMDBStore
import SyncTesting
import Synchronization
import Testing

/// A sealer that stores values with a marker byte after them and counts the values it opens,
/// so that a walk that reads keys alone can be told from one that opens values.
private final class CountingSealer: ValueSealer {
    struct Mismatch: Error {}

    let opened = Mutex(0)

    func seals(databaseNamed name: String) -> Bool { name == "sealed" }

    func seal(_ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String) throws -> [UInt8] {
        Array(value) + [0xAB]
    }

    func open(_ sealed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, database: String) throws -> [UInt8] {
        opened.withLock { $0 += 1 }
        guard sealed.last == 0xAB else { throw Mismatch() }
        return Array(sealed.dropLast())
    }

    func keyedDigest(of bytes: [UInt8]) -> [UInt8] { bytes }
}

/// The walks of keys alone (`Cursor.forEachKeyInPlace`), forwards and backwards: they visit the
/// keys that the walks of entries visit, in the same order, and open no value.
@Suite struct CursorKeyWalkTests {
    /// A store whose `plain` and `sealed` databases hold keys 10, 20, …, 90 (one byte each) and
    /// keys 1 0, 1 1, 2 0, 2 1, 3 0 (two bytes each, for prefixes), and whose `empty` one holds none.
    private static func makeStore(_ label: String) throws -> (TemporaryDirectory, Environment, CountingSealer) {
        let directory = try TemporaryDirectory(label)
        let sealer = CountingSealer()
        let environment = try Environment(directory: directory.url, sealer: sealer)
        let databases = try ["plain", "sealed"].map { try environment.database(named: $0) }
        _ = try environment.database(named: "empty")
        try environment.write { transaction in
            for database in databases {
                for key in stride(from: 10, through: 90, by: 10) {
                    try transaction.put(database, key: [UInt8(key)], value: [UInt8(key / 10)])
                }
                for key: [UInt8] in [[1, 0], [1, 1], [2, 0], [2, 1], [3, 0]] {
                    try transaction.put(database, key: key, value: [7])
                }
            }
        }
        return (directory, environment, sealer)
    }

    /// Ranges with and without bounds, inclusive and not, between keys and on them, a prefix,
    /// and ranges that hold no key.
    static let ranges: [KeyRange] = [
        .all, KeyRange(from: [25], to: [60]), KeyRange(from: [30], to: [60], includesUpperBound: true),
        KeyRange(from: [30], to: [60]), KeyRange(from: [20]), KeyRange(to: [95]), KeyRange(to: [50]),
        KeyRange(to: [50], includesUpperBound: true), KeyRange(to: [5]), KeyRange(from: [95]),
        KeyRange(from: [41], to: [49]), .prefix([2]), .prefix([4]), KeyRange(from: [1, 1], to: [3, 0]),
    ]

    /// The keys a walk of keys alone visits, and how many values the store's sealer opened.
    private static func keyWalk(
        _ environment: Environment, _ name: String, _ range: KeyRange, reverse: Bool, stopAfter: Int = .max
    ) throws -> [[UInt8]] {
        let database = try environment.database(named: name)
        return try environment.read { transaction in
            try transaction.withCursor(database) { cursor in
                var keys: [[UInt8]] = []
                try cursor.forEachKeyInPlace(in: range, reverse: reverse) { key in
                    keys.append(Array(key))
                    return keys.count < stopAfter
                }
                return keys
            }
        }
    }

    /// The keys a walk of entries visits.
    private static func entryWalk(_ environment: Environment, _ name: String, _ range: KeyRange, reverse: Bool)
        throws -> [[UInt8]]
    {
        let database = try environment.database(named: name)
        return try environment.read { transaction in
            try transaction.withCursor(database) { cursor in
                var keys: [[UInt8]] = []
                try cursor.forEach(in: range, reverse: reverse) { key, _ in
                    keys.append(key)
                    return true
                }
                return keys
            }
        }
    }

    @Test(arguments: ["plain", "sealed"]) func aReversedKeyWalkVisitsTheKeysOfARangeFromItsTop(name: String) throws {
        let (directory, environment, _) = try Self.makeStore("key-walk-reverse")
        defer { directory.remove() }
        #expect(
            try Self.keyWalk(environment, name, KeyRange(from: [25], to: [60]), reverse: true) == [[50], [40], [30]])
        #expect(
            try Self.keyWalk(environment, name, KeyRange(from: [30], to: [60], includesUpperBound: true), reverse: true)
                == [[60], [50], [40], [30]])
        #expect(try Self.keyWalk(environment, name, .prefix([2]), reverse: true) == [[2, 1], [2, 0]])
        #expect(
            try Self.keyWalk(environment, name, KeyRange(to: [5]), reverse: true) == [
                [3, 0], [2, 1], [2, 0], [1, 1], [1, 0],
            ])
        #expect(try Self.keyWalk(environment, name, KeyRange(from: [41], to: [49]), reverse: true) == [])
        #expect(try Self.keyWalk(environment, "empty", .all, reverse: true) == [])
        for range in Self.ranges {
            for reverse in [false, true] {
                let keys = try Self.keyWalk(environment, name, range, reverse: reverse)
                #expect(keys == (try Self.entryWalk(environment, name, range, reverse: reverse)), "\(range) \(reverse)")
                let ascending = reverse ? Array(keys.reversed()) : keys
                #expect(ascending == ascending.sorted { $0.lexicographicallyPrecedes($1) }, "\(range) \(reverse)")
            }
        }
    }

    @Test(arguments: ["plain", "sealed"]) func aReversedKeyWalkStopsWhenTheBodySaysSo(name: String) throws {
        let (directory, environment, _) = try Self.makeStore("key-walk-stop")
        defer { directory.remove() }
        #expect(try Self.keyWalk(environment, name, .all, reverse: true, stopAfter: 1) == [[90]])
        #expect(
            try Self.keyWalk(
                environment, name, KeyRange(to: [60], includesUpperBound: true), reverse: true, stopAfter: 3)
                == [[60], [50], [40]])
    }

    /// Neither walk of keys opens a value; the walk of entries, their control, opens each.
    @Test func aKeyWalkOpensNoValueEitherWay() throws {
        let (directory, environment, sealer) = try Self.makeStore("key-walk-opens")
        defer { directory.remove() }
        let before = sealer.opened.withLock { $0 }
        for reverse in [false, true] {
            #expect(try Self.keyWalk(environment, "sealed", .all, reverse: reverse).count == 14)
        }
        #expect(sealer.opened.withLock { $0 } == before)
        #expect(try Self.entryWalk(environment, "sealed", .all, reverse: true).count == 14)
        #expect(sealer.opened.withLock { $0 } == before + 14)
    }

    /// A value that cannot be opened is not seen by a reversed walk of keys; a reversed walk of
    /// entries reports it.
    @Test func aReversedKeyWalkPassesAValueThatDoesNotOpen() throws {
        let (directory, environment, _) = try Self.makeStore("key-walk-damaged")
        defer { directory.remove() }
        let sealed = try environment.database(named: "sealed")
        try environment.write { transaction in
            // Stored without its marker, so opening it fails.
            try transaction.put(sealed.unsealed, key: [50], value: [5])
        }
        #expect(
            try Self.keyWalk(environment, "sealed", KeyRange(from: [30], to: [70]), reverse: true) == [
                [60], [50], [40], [30],
            ])
        #expect(throws: (any Error).self) {
            try environment.read { transaction in
                try transaction.withCursor(sealed) { cursor in
                    try cursor.forEachInPlace(in: KeyRange(from: [30], to: [70]), reverse: true) { _, _ in true }
                }
            }
        }
    }
}
