import Determinism
import Foundation
import LMDBStore
import SyncTesting
import Testing

/// A damaged leaf page whose node claims a value far larger than the file (issue 49, decision
/// 0027). The walk before mapping (`DataFileHeader.checkTrees`) refuses the file; an environment
/// opened without it gets a buffer reaching past the end of the file, inside the map, where a
/// read raises `SIGBUS`, so every read checks the buffer first and throws
/// ``LMDBError/corrupted``.
@Suite(.enabled(if: DataFileHeader.checksLinkedLibrary)) struct DamagedLeafPageTests {
    /// `P_LEAF` and `P_OVERFLOW` in `MDB_page.mp_flags`, and `F_BIGDATA` in a node's flags
    /// (LMDB 0.9's `mdb.c`).
    static let leafFlag: UInt16 = 0x02
    static let overflowFlag: UInt16 = 0x04
    static let bigDataFlag: UInt16 = 0x01
    /// The size the damaged node claims: 2 GiB, far past the file and inside LMDB's map.
    static let claimedBytes: UInt32 = 0x7FFF_0000

    /// An environment of 20 short values in `values`, closed, whose node for `key-07` claims
    /// ``claimedBytes``; returns the environment's directory.
    private func damagedEnvironment(_ directory: TemporaryDirectory) throws -> URL {
        do {
            let environment = try Environment(directory: directory.url)
            let database = try environment.database(named: "values")
            try environment.write { transaction in
                for n in 0..<20 {
                    try transaction.put(
                        database, key: Array(String(format: "key-%02d", n).utf8),
                        value: [UInt8](repeating: 7, count: 40)
                    )
                }
            }
        }
        let file = directory.url.appendingPathComponent("data.mdb")
        var bytes = [UInt8](try Data(contentsOf: file))
        let header = try #require(try DataFileHeader.read(from: file))
        let node = try #require(
            Self.nodeOffset(of: Array("key-07".utf8), in: bytes, pageBytes: header.pageSizeBytes),
            "the value of key-07 is on a leaf page")
        // `mn_lo` and `mn_hi`: the value's size, low and high halves.
        bytes.replaceSubrange(node..<(node + 4), with: Self.littleEndian(Self.claimedBytes))
        try Data(bytes).write(to: file)
        return directory.url
    }

    /// Where the node with `key` starts on a leaf page of `bytes`, found by reading the pages
    /// as LMDB 0.9 lays them out: a 16-byte header (`mp_lower` at 12), then node offsets.
    private static func nodeOffset(of key: [UInt8], in bytes: [UInt8], pageBytes: Int) -> Int? {
        func load16(_ offset: Int) -> Int { Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 }
        for page in stride(from: 2 * pageBytes, to: bytes.count, by: pageBytes) {
            let flags = UInt16(load16(page + 10))
            guard flags & leafFlag != 0, flags & overflowFlag == 0 else { continue }
            for slot in stride(from: page + 16, to: page + load16(page + 12), by: 2) {
                let node = page + load16(slot)
                let keyBytes = load16(node + 6)
                guard UInt16(load16(node + 4)) & bigDataFlag == 0, keyBytes == key.count else { continue }
                if Array(bytes[(node + 8)..<(node + 8 + keyBytes)]) == key { return node }
            }
        }
        return nil
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    @Test func theTreeWalkRefusesTheFileNamingThePageAndPassesASoundOne() throws {
        let directory = try TemporaryDirectory("value-extent-walk-trees")
        defer { directory.remove() }
        let file = try damagedEnvironment(directory).appendingPathComponent("data.mdb")
        let damage = try #require(throws: DataFileDamage.self) { try DataFileHeader.checkTrees(of: file) }
        #expect(damage.file == file)
        #expect(damage.reason.contains("a value runs past the page"), "\(damage.reason)")
        let sound = try TemporaryDirectory("value-extent-sound")
        defer { sound.remove() }
        let environment = try Environment(directory: sound.url)
        let database = try environment.database(named: "values")
        try environment.write { transaction in
            for n in 0..<400 {
                try transaction.put(
                    database, key: Array("key-\(n)".utf8), value: [UInt8](repeating: 1, count: n % 50 == 0 ? 9_000 : 40)
                )
            }
        }
        try DataFileHeader.checkTrees(of: sound.url.appendingPathComponent("data.mdb"))
    }

    @Test func aLookupOfAValueClaimingBytesPastTheFileThrowsCorruptedInsteadOfFaulting() throws {
        let directory = try TemporaryDirectory("value-extent-get")
        defer { directory.remove() }
        let environment = try Environment(directory: try damagedEnvironment(directory))
        let database = try environment.database(named: "values")
        #expect(try environment.read { try $0.get(database, key: Array("key-06".utf8)) }?.count == 40)
        let error = try #require(throws: LMDBError.self) {
            try environment.read { try $0.get(database, key: Array("key-07".utf8)) }
        }
        #expect(error == .corrupted)
    }

    @Test func aCursorWalkThroughAValueClaimingBytesPastTheFileThrowsCorruptedAtIt() throws {
        let directory = try TemporaryDirectory("value-extent-walk")
        defer { directory.remove() }
        let environment = try Environment(directory: try damagedEnvironment(directory))
        let database = try environment.database(named: "values")
        var visited: [String] = []
        let error = try #require(throws: LMDBError.self) {
            try environment.read { transaction in
                try transaction.withCursor(database) { cursor in
                    try cursor.forEachInPlace { key, value in
                        visited.append(String(decoding: key, as: UTF8.self))
                        return value.count == 40
                    }
                }
            }
        }
        #expect(error == .corrupted)
        #expect(visited == (0..<7).map { String(format: "key-%02d", $0) })
    }
}
