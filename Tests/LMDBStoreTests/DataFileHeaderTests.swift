import Determinism
import Foundation
import LMDBStore
import SyncTesting
import Testing

/// The checks made before an LMDB data file is mapped (decision 0013): a sound file passes at
/// every commit, a truncated file or a zeroed meta page is ``DataFileDamage``.
@Suite(.enabled(if: DataFileHeader.checksLinkedLibrary)) struct DataFileHeaderTests {
    /// An environment whose file spans many pages: 400 keys, some with values on overflow pages.
    private func makeFile(_ directory: TemporaryDirectory) throws -> URL {
        let environment = try Environment(directory: directory.url)
        let database = try environment.database(named: "values")
        try environment.write { transaction in
            for n in 0..<400 {
                let size = n % 50 == 0 ? 9_000 : 40
                try transaction.put(
                    database, key: Array("key-\(n)".utf8), value: [UInt8](repeating: UInt8(n % 251), count: size))
            }
        }
        return directory.url.appendingPathComponent("data.mdb")
    }

    @Test func aSoundFileReadsItsNewerMetaPageAndPasses() throws {
        let directory = try TemporaryDirectory("header")
        defer { directory.remove() }
        let file = try makeFile(directory)
        let header = try #require(try DataFileHeader.read(from: file))
        #expect(header.pageSizeBytes >= 4_096)
        #expect(header.lastPage > 10)
        #expect(header.transactionID >= 2)
        #expect(header.fileBytes == (try Data(contentsOf: file)).count)
    }

    @Test func aMissingOrEmptyFileHasNoHeader() throws {
        let directory = try TemporaryDirectory("header-missing")
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("data.mdb")
        #expect(try DataFileHeader.read(from: file) == nil)
        try Data().write(to: file)
        #expect(try DataFileHeader.read(from: file) == nil)
    }

    @Test(arguments: [100, 4_096 + 100, 2 * 4_096, -4_096 * 3])
    func aFileTruncatedBelowAPageInUseIsDamage(cut: Int) throws {
        let directory = try TemporaryDirectory("header-truncated")
        defer { directory.remove() }
        let file = try makeFile(directory)
        let bytes = try Data(contentsOf: file)
        // A negative cut counts from the end: the last three pages, which hold the newest tree.
        try bytes.prefix(cut > 0 ? cut : bytes.count + cut).write(to: file)
        #expect(throws: DataFileDamage.self) { try DataFileHeader.read(from: file) }
    }

    @Test(arguments: [0, 1])
    func aZeroedMetaPageIsDamage(page: Int) throws {
        let directory = try TemporaryDirectory("header-zeroed")
        defer { directory.remove() }
        let file = try makeFile(directory)
        var bytes = try Data(contentsOf: file)
        bytes.replaceSubrange(page * 4_096..<(page + 1) * 4_096, with: Data(count: 4_096))
        try bytes.write(to: file)
        #expect(throws: DataFileDamage.self) { try DataFileHeader.read(from: file) }
    }

    /// Writes, deletions and overflow values in 300 seeded transactions: LMDB does not write a
    /// page it allocated and freed in one transaction, so the file may end before its last
    /// page; the free-page database explains it and the file passes after every commit.
    @Test func aSoundFilePassesAfterEveryCommitOfAWorkloadThatFreesPages() throws {
        let directory = try TemporaryDirectory("header-workload")
        defer { directory.remove() }
        let environment = try Environment(directory: directory.url)
        let database = try environment.database(named: "churn")
        let file = directory.url.appendingPathComponent("data.mdb")
        var random = SplitMix64(seed: 25)
        for round in 0..<300 {
            try environment.write { transaction in
                for _ in 0..<Int.random(in: 1...40, using: &random) {
                    let key = Array("k\(Int.random(in: 0..<600, using: &random))".utf8)
                    if Bool.random(using: &random) {
                        let size = Int.random(in: 0..<10, using: &random) == 0 ? 12_000 : 60
                        try transaction.put(
                            database, key: key, value: [UInt8](repeating: UInt8(round % 256), count: size))
                    } else {
                        _ = try transaction.delete(database, key: key)
                    }
                }
            }
            #expect(throws: Never.self, "round \(round)") { try DataFileHeader.read(from: file) }
        }
    }

    /// A file may end before its last page when the pages missing are free (LMDB does not
    /// write a page it allocated and freed in one transaction). A copy with only free pages cut
    /// off its end passes, and LMDB reads and writes it as before: the check tells free pages
    /// from pages in use by reading the free-page database.
    @Test func aCopyWithOnlyFreePagesCutOffItsEndPassesAndStillReads() throws {
        let directory = try TemporaryDirectory("header-free-tail")
        defer { directory.remove() }
        let original = directory.url.appendingPathComponent("original", isDirectory: true)
        let copy = directory.url.appendingPathComponent("copy", isDirectory: true)
        let environment = try Environment(directory: original)
        let database = try environment.database(named: "tail")
        var cut = false
        for round in 0..<200 where !cut {
            try environment.write { transaction in
                for n in 0..<8 {
                    let key = Array("k-\((round * 3 + n) % 40)".utf8)
                    try transaction.put(database, key: key, value: [UInt8](repeating: UInt8(round % 256), count: 300))
                }
            }
            try? FileManager.default.removeItem(at: copy)
            try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
            let bytes = try Data(contentsOf: original.appendingPathComponent("data.mdb"))
            try bytes.prefix(bytes.count - 4_096).write(to: copy.appendingPathComponent("data.mdb"))
            cut = (try? DataFileHeader.read(from: copy.appendingPathComponent("data.mdb"))) != nil
        }
        try #require(cut, "no commit left a free page at the end of the file")
        let expected = try environment.read { try $0.entryCount(database) }
        let reopened = try Environment(directory: copy)
        let tail = try reopened.database(named: "tail")
        let walked = try reopened.read { transaction in
            try transaction.withCursor(tail) { cursor in
                var seen = 0
                var entry = try cursor.first()
                while entry != nil {
                    seen += 1
                    entry = try cursor.next()
                }
                return seen
            }
        }
        #expect(walked == expected)
        try reopened.write { transaction in try transaction.put(tail, key: Array("after".utf8), value: [2]) }
    }
}
