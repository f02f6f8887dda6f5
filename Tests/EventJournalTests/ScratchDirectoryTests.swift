import Foundation
import SyncTesting
import Synchronization
import Testing

@testable import EventJournal

/// Scratch directories are named by the process id and a counter. A process killed before it
/// removed its scratch leaves one behind, and a later process may get the same id.
@Suite struct ScratchDirectoryTests {
    @Test func aDirectoryLeftByAKilledProcessWithTheSameIdIsSkippedNotReused() throws {
        let next = scratchCounter.load(ordering: .relaxed) + 1
        let temporary = FileManager.default.temporaryDirectory
        let pid = ProcessInfo.processInfo.processIdentifier
        // Only names this test creates are leftovers: a test running beside it may claim one first.
        let leftovers = (next..<next + 64).compactMap { serial -> URL? in
            let leftover = temporary.appendingPathComponent("syncjournal-scratch-\(pid)-\(serial)", isDirectory: true)
            do {
                try FileManager.default.createDirectory(at: leftover, withIntermediateDirectories: false)
            } catch {
                return nil
            }
            _ = FileManager.default.createFile(
                atPath: leftover.appendingPathComponent("data.mdb").path, contents: Data("left".utf8))
            return leftover
        }
        defer { for leftover in leftovers { try? FileManager.default.removeItem(at: leftover) } }
        #expect(!leftovers.isEmpty)

        let scratch = Journal.scratchDirectoryURL()
        defer { try? FileManager.default.removeItem(at: scratch) }

        #expect(!leftovers.contains(scratch))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty)
        for leftover in leftovers {
            #expect(
                FileManager.default.contents(atPath: leftover.appendingPathComponent("data.mdb").path)
                    == Data("left".utf8))
        }
    }

    /// A restore into a claimed scratch directory empties it in place. Removing and recreating it
    /// freed the name for a moment, and a claim made in that moment shared the directory: the
    /// last CI run lost a compaction's restored checkpoint that way.
    @Test func aRestoreEmptiesItsDestinationInPlaceAndNeverRemovesIt() throws {
        let fixture = try JournalFixture("restore-in-place")
        defer { fixture.directory.remove() }
        let journal = try fixture.open()
        try journal.append((1...1000).map { CrashWriterPayload.draft(for: UInt64($0)) })
        let checkpoints = fixture.directory.appending("checkpoints")
        try journal.withState(asOf: 450, checkpointDirectory: checkpoints, checkpointInterval: 100) { _, _ in }
        let destination = Journal.scratchDirectoryURL()
        defer { try? FileManager.default.removeItem(at: destination) }
        let stray = destination.appendingPathComponent("stray")
        _ = FileManager.default.createFile(atPath: stray.path, contents: Data("stray".utf8))
        // An open descriptor keeps the directory's inode alive, so a recreated directory cannot
        // reuse its number.
        let descriptor = open(destination.path, O_RDONLY | O_DIRECTORY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }

        let restored = try journal.read { reader in
            try journal.checkpointStore(in: checkpoints).restoreNearest(
                atOrBelow: 333, entryChecksum: { try reader.continuableChecksum(of: $0) }, into: destination)
        }

        #expect(restored?.sequence == 300)
        var held = stat()
        var named = stat()
        #expect(fstat(descriptor, &held) == 0 && stat(destination.path, &named) == 0)
        #expect(held.st_nlink > 0)
        #expect(held.st_ino == named.st_ino)
        #expect(try FileManager.default.contentsOfDirectory(atPath: destination.path) == ["data.mdb"])
    }
}
