import Foundation
import LosslessJSON
import SalesforceAPI
import SyncTesting
import Testing

/// MERGE_FIELDS through the built `msync` against the built `salesforce-simulator`, as a new user
/// would try it: a merge of two users' edits, then a conflict listed and resolved.
@Suite(.serialized) struct MSyncConflictsToolTests {
    let msync: BuiltProduct
    let directory: TemporaryDirectory
    let simulator: SimulatorProcess

    init() throws {
        msync = try BuiltProduct("msync")
        directory = try TemporaryDirectory("msync-conflicts")
        simulator = try SimulatorProcess(["--seed", "5"])
    }

    @discardableResult
    private func run(_ arguments: [String], expecting status: Int32 = 0) async throws -> BuiltProduct.Output {
        let output = try await msync.run(
            arguments + ["--store", directory.appending("store").path] + simulator.connectionArguments)
        #expect(output.status == status, "\(arguments): \(output.standardError)")
        return output
    }

    private func json(_ arguments: [String]) async throws -> JSONValue {
        try JSONValue(parsing: try await run(arguments).standardOutput)
    }

    /// Calls the simulator's control plane, as another user or the test's eyes.
    @discardableResult
    private func control(_ method: String, _ path: String, body: JSONValue? = nil) async throws -> JSONValue {
        let url = try #require(URL(string: simulator.url + "/__simulator/" + path))
        let response = try await URLSessionTransport().send(
            TransportRequest(method: method, url: url, body: body.map { Data($0.serialized()) }))
        #expect((200..<300).contains(response.status), "\(method) \(path): \(response.status)")
        return response.body.isEmpty ? .null : try JSONValue(parsing: response.body)
    }

    /// Another user edits the account.
    private func serverEdit(_ id: String, _ fields: JSONValue) async throws {
        try await control("POST", "clock/advance?seconds=5")
        try await control("POST", "records", body: ["type": "Account", "id": .string(id), "fields": fields])
    }

    /// The fields of each record the PATCH requests sent, without the id and `attributes`.
    private func patchedFields() async throws -> [JSONValue] {
        try await control("GET", "requests").array?.flatMap { entry -> [JSONValue] in
            guard entry["method"]?.string == "PATCH", let body = entry["body"]?.string else { return [] }
            let parsed = try JSONValue(parsing: Array(body.utf8))
            return (parsed["records"]?.array ?? [parsed]).compactMap { record in
                record.object.map { .object($0.filter { $0.key != "Id" && $0.key != "attributes" }) }
            }
        } ?? []
    }

    @Test func twoUsersEditsMergeAndAConflictIsListedThenResolvedWithTheServersValue() async throws {
        defer {
            simulator.stop()
            directory.remove()
        }
        try await run(["register-soup", "accounts", "--index", "Id:string"])
        let target =
            #"{"type":"soql","query":"SELECT Id, Name, Phone, LastModifiedDate FROM Account WHERE ExternalId__c LIKE 'ACC-1_'"}"#
        let down = try await json([
            "sync-down", "--soup", "accounts", "--target", target, "--merge-mode", "MERGE_FIELDS", "--name", "down",
        ])
        #expect(down["status"] == "DONE")
        let records = try await json(["query", "accounts", "--json", "--page-size", "1"])
        let id = try #require(records.array?.first?["Id"]?.string)

        // A merge: the app renames, another user changes the phone; both survive.
        try await run(["update", "accounts", id, #"{"Name":"Renamed here"}"#])
        try await serverEdit(id, ["Phone": "555-0100"])
        #expect(try await json(["resync", "down"])["status"] == "DONE")
        let merged = try await json(["get", "accounts", id, "--json"])
        #expect(merged["Name"] == "Renamed here")
        #expect(merged["Phone"] == "555-0100")
        let up = try await json([
            "sync-up", "--soup", "accounts", "--fieldlist", "Name,Phone", "--merge-mode", "MERGE_FIELDS", "--name",
            "up",
        ])
        #expect(up["status"] == "DONE")
        #expect(try await patchedFields() == [["Name": "Renamed here"]])

        // A conflict: both change the name.
        try await run(["update", "accounts", id, #"{"Name":"Mine"}"#])
        try await serverEdit(id, ["Name": "Theirs"])
        #expect(try await json(["resync", "down"])["status"] == "DONE")
        let conflicts = try await json(["--json", "conflicts"])
        #expect(conflicts.array?.count == 1)
        let conflict = try #require(conflicts.array?.first)
        #expect(conflict["soup"] == "accounts")
        #expect(conflict["id"] == .string(id))
        #expect(conflict["kind"] == "fields")
        #expect(
            conflict["fields"] == [["path": "Name", "base": "Renamed here", "local": "Mine", "server": "Theirs"]])
        #expect(try await run(["conflicts", "accounts"]).standardOutput.contains(#"Name: base "Renamed here""#))

        #expect(try await run(["resolve", "accounts", id, "--take", "server"]).standardOutput == "resolved\n")
        #expect(try await json(["conflicts", "accounts", "--json"]) == [])
        #expect(try await json(["get", "accounts", id, "--json"])["Name"] == "Theirs")
        let again = try await json(["resync", "up"])
        #expect(again["syncUpSummary"]?["sent"] == 0)
        #expect(try await patchedFields() == [["Name": "Renamed here"]])
    }

    @Test func resolveRefusesARecordWithoutAConflictAndBadFieldChoices() async throws {
        defer {
            simulator.stop()
            directory.remove()
        }
        try await run(["register-soup", "accounts", "--index", "Id:string"])
        try await run(["create", "accounts", #"{"Name":"Local"}"#])
        let none = try await run(["resolve", "accounts", "1", "--take", "local"], expecting: 2)
        #expect(none.standardError.contains("has no open conflict"))
        let both = try await run(["resolve", "accounts", "1"], expecting: 2)
        #expect(both.standardError.contains("--take"))
        let bad = try await run(["resolve", "accounts", "1", "--field", "Name={"], expecting: 2)
        #expect(bad.standardError.contains("is not local, server or a JSON value"))
    }
}
