import Foundation
import SyncTesting
import Testing

@testable import EventJournal

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Replacing a small file (the wrapped keys' copy) through a temporary file beside it.
@Suite struct FileDurabilityTests {
    /// The id of a process that has exited and been reaped, so no process holds it now.
    private static func exitedProcessId() async throws -> pid_t {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        await process.exited()
        return process.processIdentifier
    }

    @Test func aReplacementRemovesTheTemporaryFilesOfWritersThatDiedAndKeepsALiveOnes() async throws {
        let directory = try TemporaryDirectory("durability")
        defer { directory.remove() }
        let file = directory.appending("wrapped-keys")
        let dead = directory.appending("wrapped-keys.partial-\(try await Self.exitedProcessId())-0")
        let live = directory.appending("wrapped-keys.partial-\(getppid())-0")
        let other = directory.appending("checkpoint.partial-\(try await Self.exitedProcessId())-0")
        for leftover in [dead, live, other] {
            _ = FileManager.default.createFile(atPath: leftover.path, contents: Data("left".utf8))
        }

        try FileDurability.replace(file, with: Array("new".utf8))

        #expect(FileManager.default.contents(atPath: file.path) == Data("new".utf8))
        #expect(!FileManager.default.fileExists(atPath: dead.path))
        #expect(FileManager.default.fileExists(atPath: live.path))
        #expect(FileManager.default.fileExists(atPath: other.path))
    }
}
