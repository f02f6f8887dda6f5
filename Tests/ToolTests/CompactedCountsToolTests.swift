import Foundation
import SyncTesting
import Testing

/// Issue 29: after compaction `info`, `verify` and `blame` count what the journal still holds.
@Suite struct CompactedCountsToolTests {
    let msync: BuiltProduct
    let replay: BuiltProduct
    let directory: TemporaryDirectory

    init() throws {
        (msync, replay, directory) = try ToolWorkspace.make("compacted-counts")
    }

    @Test func infoVerifyAndBlameSayWhatIsKeptAndWhereHistoryStarts() async throws {
        defer { directory.remove() }
        let store = directory.appending("store").path
        #expect(try await msync.run(["--store", store, "register-soup", "acc", "--index", "Id:string"]).status == 0)
        for n in 1...6 {
            #expect(try await msync.run(["--store", store, "create", "acc", "{\"Id\":\"x\(n)\"}"]).status == 0)
        }
        #expect(try await replay.run(["compact", store, "--retain-entries", "2"]).status == 0)
        let info = try await replay.run(["info", store])
        #expect(info.standardOutput.contains("entries:        2 kept, 7 ever written"), "\(info.standardOutput)")
        let verify = try await replay.run(["verify", store])
        #expect(verify.status == 0)
        #expect(
            verify.standardOutput.contains("ok: 2 entries verified (6…7), from the horizon's checkpoint at entry 5"))
        let blame = try await replay.run(["blame", store, "acc", "x1"])
        #expect(blame.status == 0, "\(blame.standardError)")
        #expect(blame.standardOutput.contains("lies before the horizon, entry 6"))
        #expect(blame.standardOutput.contains("\"Id\":\"x1\""))
    }
}
