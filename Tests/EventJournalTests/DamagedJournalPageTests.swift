import Determinism
import EventJournal
import Foundation
import LMDBStore
import SyncTesting
import Testing

/// Issue 49: a journal page filled with random bytes, the leaf page that holds entries, is met
/// by a read as a typed error naming the journal's file and `journal-replay recover`, never as
/// a signal (decision 0027). Before, a node claiming a value larger than the file made the read
/// run past its end, and the process died by `SIGBUS`.
@Suite(.enabled(if: DataFileHeader.checksLinkedLibrary)) struct DamagedJournalPageTests {
    /// Seeds of the random bytes: each fills the page differently (a leaf or a branch by its
    /// flags, node offsets and sizes anywhere).
    static let seeds: [UInt64] = [1, 2, 3, 4, 5, 6, 7, 8, 49, 2_026]

    @Test(arguments: seeds)
    func aRandomLeafPageOfEntriesIsReadAsADamagedJournalNamingItsFileAndRecover(seed: UInt64) throws {
        let fixture = try JournalFixture("random-journal-page")
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        for n in 1...40 { try journal.append(note(String(repeating: "entry \(n) ", count: 20), n)) }
        try journal.close()
        let file = fixture.directory.appending("store").appendingPathComponent("journal/data.mdb")
        let header = try #require(try DataFileHeader.read(from: file))
        // The leaf page holding entry 20, found the way salvage reads pages.
        let nodes = try DataFileHeader.leafNodes(of: file, keyBytes: 8)
        let page = try #require(nodes.first { $0.key == [0, 0, 0, 0, 0, 0, 0, 20] }?.page)
        var bytes = [UInt8](try Data(contentsOf: file))
        var random = SplitMix64(seed: seed)
        let start = Int(page) * header.pageSizeBytes
        for offset in start..<(start + header.pageSizeBytes) {
            bytes[offset] = UInt8.random(in: 0...UInt8.max, using: &random)
        }
        try Data(bytes).write(to: file)

        let error = try #require(throws: JournalError.self) {
            let reopened = try fixture.open()
            defer { try? reopened.close() }
            _ = try reopened.entries(in: 1...40)
        }
        #expect(error.code == .damagedJournal, "\(error)")
        #expect(error.message.contains(file.standardizedFileURL.path), "\(error.message)")
        #expect(error.message.contains("journal-replay recover"), "\(error.message)")
        #expect(!error.message.contains("\n"))
    }
}
