import Foundation
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
}
