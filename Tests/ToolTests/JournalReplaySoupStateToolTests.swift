import Foundation
import LosslessJSON
import SyncTesting
import Testing

/// `journal-replay state` shows soups, records and dirty sets at any entry.
@Suite struct JournalReplaySoupStateToolTests {
    @Test func showsASoupsRecordsAndDirtySetAsOfAnEntry() async throws {
        let directory = try TemporaryDirectory("soup-state")
        defer { directory.remove() }
        let store = directory.appending("store").path
        let msync = try BuiltProduct("msync")
        _ = try await msync.run(["register-soup", "accounts", "--index", "Id:string", "--store", store])
        _ = try await msync.run(["create", "accounts", #"{"Name":"First"}"#, "--store", store])
        _ = try await msync.run(["create", "accounts", #"{"Name":"Second"}"#, "--store", store])
        let replay = try BuiltProduct("journal-replay")

        let now = try await JSONValue(
            parsing: try replay.run(["state", store, "--soup", "accounts", "--json"]).standardOutput)
        let soup = now["projections"]?["soups"]?["accounts"]
        #expect(soup?["records"]?.array?.compactMap { $0["Name"]?.string } == ["First", "Second"])
        #expect(soup?["dirty"] == [1, 2])
        #expect(soup?["indexes"] == [["path": "Id", "type": "string"]])

        let past = try await JSONValue(
            parsing: try replay.run(["state", store, "--as-of", "2", "--soup", "accounts", "--json"]).standardOutput)
        #expect(past["projections"]?["soups"]?["accounts"]?["records"]?.array?.count == 1)

        let unknown = try await replay.run(["state", store, "--soup", "nope"])
        #expect(unknown.status == 2)
        #expect(unknown.standardError == "journal-replay: no soup named 'nope' in this state\n")
    }
}
