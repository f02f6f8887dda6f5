import Foundation
import LosslessJSON
import SyncTesting
import Testing

/// `journal-replay blame` on a store shaped by the built `msync` binary.
@Suite struct JournalReplayBlameToolTests {
    let msync: BuiltProduct
    let journalReplay: BuiltProduct
    let directory: TemporaryDirectory

    init() throws {
        msync = try BuiltProduct("msync")
        journalReplay = try BuiltProduct("journal-replay")
        directory = try TemporaryDirectory("blame")
    }

    @Test func listsEveryEntryThatTouchedOneRecord() async throws {
        defer { directory.remove() }
        let store = directory.appending("store").path
        func msync(_ arguments: [String]) async throws -> String {
            let output = try await self.msync.run(arguments + ["--store", store])
            #expect(output.status == 0, "\(arguments): \(output.standardError)")
            return output.standardOutput
        }
        _ = try await msync(["register-soup", "accounts", "--index", "Id:string"])
        let created = try await JSONValue(parsing: try msync(["create", "accounts", #"{"Name":"Acme"}"#]))
        _ = try await msync(["create", "accounts", #"{"Name":"Other"}"#])
        let id = try #require(created["Id"]?.string)
        _ = try await msync(["update", "accounts", id, #"{"Name":"Acme Corp"}"#])

        let human = try await journalReplay.run(["blame", store, "accounts", id])
        #expect(human.status == 0, "\(human.standardError)")
        let lines = human.standardOutput.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.contains("soup.saved created locally") == true)
        #expect(lines.last?.contains("updated locally") == true)
        #expect(lines.last?.contains("Acme Corp") == true)

        let json = try await journalReplay.run(["blame", store, "accounts", id, "--json"])
        let events = try #require(try JSONValue(parsing: json.standardOutput).array)
        #expect(events.map { $0["action"]?.string } == ["created locally", "updated locally"])
        #expect(events.last?["record"]?["Name"] == "Acme Corp")
    }

    @Test func anUnknownRecordExitsTwoWithOneLine() async throws {
        defer { directory.remove() }
        let store = directory.appending("store").path
        _ = try await msync.run(["register-soup", "accounts", "--index", "Id:string", "--store", store])
        let output = try await journalReplay.run(["blame", store, "accounts", "001NOPE"])
        #expect(output.status == 2)
        #expect(output.standardError.split(separator: "\n").count == 1)
        #expect(output.standardError.contains("001NOPE"))
    }
}
