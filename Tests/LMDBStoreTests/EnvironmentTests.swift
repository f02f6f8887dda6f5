import Foundation
import LMDBStore
import SyncTesting
import Testing

@Suite struct EnvironmentTests {
    @Test func createsItsDirectoryAndPrivateFiles() throws {
        let directory = try TemporaryDirectory("lmdb")
        defer { directory.remove() }
        let location = directory.appending("nested/store")
        let environment = try Environment(directory: location)
        let database = try environment.database(named: "things")
        try environment.write { try $0.put(database, key: [1], value: [2]) }
        let attributes = try FileManager.default.attributesOfItem(
            atPath: location.appendingPathComponent("data.mdb").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test func storesReadsAndDeletesValues() throws {
        let directory = try TemporaryDirectory("lmdb")
        defer { directory.remove() }
        let environment = try Environment(directory: directory.url)
        let database = try environment.database(named: "things")
        try environment.write { transaction in
            try transaction.put(database, key: Array("a".utf8), value: Array("1".utf8))
            try transaction.put(database, key: Array("b".utf8), value: [])
        }
        let (a, b, c, count) = try environment.read { transaction in
            (
                try transaction.get(database, key: Array("a".utf8)),
                try transaction.get(database, key: Array("b".utf8)),
                try transaction.get(database, key: Array("c".utf8)), try transaction.entryCount(database)
            )
        }
        #expect(a == Array("1".utf8))
        #expect(b == [])
        #expect(c == nil)
        #expect(count == 2)
        let deleted = try environment.write { try $0.delete(database, key: Array("a".utf8)) }
        let deletedAgain = try environment.write { try $0.delete(database, key: Array("a".utf8)) }
        #expect(deleted)
        #expect(!deletedAgain)
    }

    @Test func aThrowingWriteStoresNothing() throws {
        struct Refused: Error {}
        let directory = try TemporaryDirectory("lmdb")
        defer { directory.remove() }
        let environment = try Environment(directory: directory.url)
        let database = try environment.database(named: "things")
        #expect(throws: Refused.self) {
            try environment.write { transaction in
                try transaction.put(database, key: [1], value: [1])
                throw Refused()
            }
        }
        #expect(try environment.read { try $0.get(database, key: [1]) } == nil)
    }

    @Test func noOverwriteReportsKeyExists() throws {
        let directory = try TemporaryDirectory("lmdb")
        defer { directory.remove() }
        let environment = try Environment(directory: directory.url)
        let database = try environment.database(named: "things")
        try environment.write { try $0.put(database, key: [1], value: [1]) }
        #expect(throws: LMDBError.keyExists) {
            try environment.write { try $0.put(database, key: [1], value: [2], options: .noOverwrite) }
        }
    }

    @Test func growsTheMapWhenAWriteDoesNotFit() throws {
        let directory = try TemporaryDirectory("lmdb")
        defer { directory.remove() }
        var options = EnvironmentOptions()
        options.mapSizeBytes = 1 << 20
        options.flushesOnCommit = false
        let environment = try Environment(directory: directory.url, options: options)
        let database = try environment.database(named: "big")
        let value = [UInt8](repeating: 7, count: 4096)
        try environment.write { transaction in
            for index in 0..<2000 {
                try transaction.put(
                    database, key: withUnsafeBytes(of: UInt32(index).bigEndian) { Array($0) }, value: value)
            }
        }
        #expect(environment.mapSizeBytes > 1 << 20)
        #expect(try environment.read { try $0.entryCount(database) } == 2000)
    }

    @Test func refusesToGrowBeyondTheMaximum() throws {
        let directory = try TemporaryDirectory("lmdb")
        defer { directory.remove() }
        var options = EnvironmentOptions()
        options.mapSizeBytes = 1 << 20
        options.mapSizeMaxBytes = 2 << 20
        options.flushesOnCommit = false
        let environment = try Environment(directory: directory.url, options: options)
        let database = try environment.database(named: "big")
        let value = [UInt8](repeating: 7, count: 4096)
        #expect(throws: LMDBError.mapFull) {
            try environment.write { transaction in
                for index in 0..<2000 {
                    try transaction.put(
                        database, key: withUnsafeBytes(of: UInt32(index).bigEndian) { Array($0) }, value: value)
                }
            }
        }
        #expect(try environment.read { try $0.entryCount(database) } == 0)
    }

    @Test func describesErrorsWithLMDBsOwnText() {
        #expect(LMDBError.notFound.description == "MDB_NOTFOUND: No matching key/data pair found")
        #expect(LMDBError.mapFull.description.hasPrefix("MDB_MAP_FULL"))
        for code in LMDBError.allLMDBCodes {
            #expect(code.description.hasPrefix("MDB_"), "\(code.rawValue)")
        }
    }

    @Test func rejectsAFileThatIsNotAnLMDBStore() throws {
        let directory = try TemporaryDirectory("lmdb")
        defer { directory.remove() }
        try Data(repeating: 0xAB, count: 64 * 1024).write(to: directory.appending("data.mdb"))
        #expect(throws: LMDBError.self) { try Environment(directory: directory.url) }
    }
}
