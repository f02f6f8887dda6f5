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
}
