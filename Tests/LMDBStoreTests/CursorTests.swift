import LMDBStore
import SyncTesting
import Testing

@Suite struct CursorTests {
    /// A store with keys 10, 20, …, 90 (one byte each).
    private func makeTens() throws -> (TemporaryDirectory, Environment, Database) {
        let directory = try TemporaryDirectory("cursor")
        let environment = try Environment(directory: directory.url)
        let database = try environment.database(named: "tens")
        try environment.write { transaction in
            for key in stride(from: 10, through: 90, by: 10) {
                try transaction.put(database, key: [UInt8(key)], value: [UInt8(key / 10)])
            }
        }
        return (directory, environment, database)
    }

    private func keys(_ environment: Environment, _ database: Database, _ range: KeyRange, reverse: Bool = false)
        throws -> [UInt8]
    {
        try environment.read { transaction in
            try transaction.withCursor(database) { cursor in
                var keys: [UInt8] = []
                try cursor.forEach(in: range, reverse: reverse) { key, _ in
                    keys.append(key[0])
                    return true
                }
                return keys
            }
        }
    }

    @Test func lastKeyIsTheGreatestKeyOrNilInAnEmptyDatabase() throws {
        let (directory, environment, database) = try makeTens()
        defer { directory.remove() }
        let empty = try environment.database(named: "empty")
        let lastKeys = try environment.read { transaction in
            (
                try transaction.withCursor(database) { try $0.lastKey() },
                try transaction.withCursor(empty) { try $0.lastKey() }
            )
        }
        #expect(lastKeys.0 == [90])
        #expect(lastKeys.1 == nil)
    }

    @Test func iteratesForwardWithinBounds() throws {
        let (directory, environment, database) = try makeTens()
        defer { directory.remove() }
        do {
            #expect(try keys(environment, database, .all) == [10, 20, 30, 40, 50, 60, 70, 80, 90])
            #expect(try keys(environment, database, KeyRange(from: [25], to: [60])) == [30, 40, 50])
            #expect(
                try keys(environment, database, KeyRange(from: [30], to: [60], includesUpperBound: true)) == [
                    30, 40, 50, 60,
                ])
            #expect(try keys(environment, database, KeyRange(from: [95])) == [])
        }
    }

    @Test func iteratesBackwardWithinBounds() throws {
        let (directory, environment, database) = try makeTens()
        defer { directory.remove() }
        do {
            #expect(try keys(environment, database, .all, reverse: true) == [90, 80, 70, 60, 50, 40, 30, 20, 10])
            #expect(try keys(environment, database, KeyRange(from: [25], to: [60]), reverse: true) == [50, 40, 30])
            #expect(
                try keys(environment, database, KeyRange(from: [30], to: [60], includesUpperBound: true), reverse: true)
                    == [60, 50, 40, 30])
            #expect(try keys(environment, database, KeyRange(to: [95]), reverse: true).first == 90)
            #expect(try keys(environment, database, KeyRange(to: [5]), reverse: true) == [])
        }
    }

    @Test func stopsWhenTheBodySaysSo() throws {
        let (directory, environment, database) = try makeTens()
        defer { directory.remove() }
        do {
            let firstTwo = try environment.read { transaction in
                try transaction.withCursor(database) { cursor in
                    var seen: [UInt8] = []
                    try cursor.forEach { key, _ in
                        seen.append(key[0])
                        return seen.count < 2
                    }
                    return seen
                }
            }
            #expect(firstTwo == [10, 20])
        }
    }

    @Test func prefixRangesCoverExactlyThePrefix() throws {
        let directory = try TemporaryDirectory("cursor")
        defer { directory.remove() }
        let environment = try Environment(directory: directory.url)
        let database = try environment.database(named: "prefixed")
        let stored: [[UInt8]] = [[1], [1, 0], [1, 0xFF], [1, 0xFF, 0xFF], [2], [0xFF, 1], [0xFF, 0xFF]]
        try environment.write { transaction in
            for key in stored { try transaction.put(database, key: key, value: []) }
        }
        func keys(_ range: KeyRange) throws -> [[UInt8]] {
            try environment.read { transaction in
                try transaction.withCursor(database) { cursor in
                    var keys: [[UInt8]] = []
                    try cursor.forEach(in: range) { key, _ in
                        keys.append(key)
                        return true
                    }
                    return keys
                }
            }
        }
        #expect(try keys(.prefix([1])) == [[1], [1, 0], [1, 0xFF], [1, 0xFF, 0xFF]])
        #expect(try keys(.prefix([1, 0xFF])) == [[1, 0xFF], [1, 0xFF, 0xFF]])
        #expect(try keys(.prefix([0xFF])) == [[0xFF, 1], [0xFF, 0xFF]])
    }

    @Test func deletesUnderTheCursor() throws {
        let (directory, environment, database) = try makeTens()
        defer { directory.remove() }
        do {
            try environment.write { transaction in
                try transaction.withCursor(database) { cursor in
                    _ = try cursor.seek(atLeast: [40])
                    try cursor.deleteCurrent()
                }
            }
            #expect(try keys(environment, database, .all) == [10, 20, 30, 50, 60, 70, 80, 90])
        }
    }
}
