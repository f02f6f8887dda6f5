import Foundation
import LosslessJSON
import SyncTesting
import Testing

/// The sync commands of the built `msync` binary against the built `salesforce-simulator`.
@Suite(.serialized) struct MSyncSyncToolTests {
    let msync: BuiltProduct
    let directory: TemporaryDirectory
    let simulator: SimulatorProcess

    init() throws {
        msync = try BuiltProduct("msync")
        directory = try TemporaryDirectory("msync-sync")
        simulator = try SimulatorProcess(["--seed", "5"])
    }

    @discardableResult
    private func run(
        _ arguments: [String], store: String = "store", expecting status: Int32 = 0, connected: Bool = true
    ) async throws -> BuiltProduct.Output {
        let output = try await msync.run(
            arguments + ["--store", directory.appending(store).path] + (connected ? simulator.connectionArguments : []))
        #expect(output.status == status, "\(arguments): \(output.standardError)")
        return output
    }

    private func writeConfigs() throws -> (store: String, syncs: String) {
        let store = directory.appending("userstore.json")
        try Data(
            #"{"soups": [{"soupName": "accounts", "indexes": [{"path": "Id", "type": "string"}, {"path": "Name", "type": "string"}]}]}"#
                .utf8
        ).write(to: store)
        let syncs = directory.appending("usersyncs.json")
        try Data(
            #"""
            {"syncs": [
              {"syncName": "accountsDown", "syncType": "syncDown", "soupName": "accounts",
               "target": {"type": "soql", "query": "SELECT Id, Name, LastModifiedDate FROM Account WHERE ExternalId__c LIKE 'ACC-1_'"},
               "options": {"mergeMode": "LEAVE_IF_CHANGED"}},
              {"syncName": "accountsUp", "syncType": "syncUp", "soupName": "accounts",
               "target": {}, "options": {"fieldlist": ["Name"], "mergeMode": "OVERWRITE"}}
            ]}
            """#.utf8
        ).write(to: syncs)
        return (store.path, syncs.path)
    }

    @Test func setupSyncDownEditSyncUpAndResyncAWholeSession() async throws {
        defer {
            simulator.stop()
            directory.remove()
        }
        let configs = try writeConfigs()
        let setup = try await run(["setup", "--store-config", configs.store, "--syncs-config", configs.syncs, "--json"])
        let created = try JSONValue(parsing: setup.standardOutput)
        #expect(created["soups"] == ["accounts"])
        #expect(created["syncs"]?.array?.compactMap { $0["name"]?.string } == ["accountsDown", "accountsUp"])

        let down = try await JSONValue(parsing: try run(["resync", "accountsDown"]).standardOutput)
        #expect(down["status"] == "DONE")
        let fetched = try #require(down["totalSize"]?.number?.int64Value)
        #expect(fetched > 0)
        let records = try await JSONValue(
            parsing: try run(["query", "accounts", "--json", "--page-size", "1000"]).standardOutput)
        #expect(Int64(records.array?.count ?? 0) == fetched)
        let first = try #require(records.array?.first?["Id"]?.string)

        try await run(["update", "accounts", first, #"{"Name":"Renamed by msync"}"#])
        #expect(try await run(["dirty", "accounts", "--json"]).standardOutput.contains("Renamed by msync"))
        let up = try await JSONValue(parsing: try run(["resync", "accountsUp"]).standardOutput)
        #expect(up["status"] == "DONE")
        #expect(up["syncUpSummary"]?["succeeded"] == 1)
        #expect(try await run(["dirty", "accounts", "--json"]).standardOutput == "[]\n")

        // A second store sees the change on the server.
        try await run(["register-soup", "accounts", "--index", "Id:string"], store: "check", connected: false)
        let check = try await JSONValue(
            parsing: try run(
                [
                    "sync-down", "--soup", "accounts", "--target",
                    #"{"type":"soql","query":"SELECT Id, Name FROM Account WHERE Name = 'Renamed by msync'"}"#,
                ], store: "check"
            ).standardOutput)
        #expect(check["totalSize"] == 1)

        let status = try await JSONValue(parsing: try run(["status", "--json"], connected: false).standardOutput)
        #expect(status.array?.count == 2)
        let human = try await run(["status"], connected: false).standardOutput
        #expect(human.contains("accountsDown syncDown accounts DONE 100%"))
        try await run(["delete-sync", "accountsUp"], connected: false)
        let gone = try await run(["status", "accountsUp"], expecting: 2, connected: false)
        #expect(gone.standardError == "msync: Sync accountsUp does not exist\n")
    }

    @Test func cleanGhostsDeletesRecordsTheServerNoLongerHas() async throws {
        defer {
            simulator.stop()
            directory.remove()
        }
        try await run(["register-soup", "accounts", "--index", "Id:string"], connected: false)
        let target = #"{"type":"soql","query":"SELECT Id, Name FROM Account WHERE ExternalId__c LIKE 'ACC-1_'"}"#
        let down = try await JSONValue(
            parsing: try run(["sync-down", "--soup", "accounts", "--target", target, "--name", "a"]).standardOutput)
        #expect(down["status"] == "DONE")
        let cleaned = try await run(["clean-ghosts", "a", "--json"])
        #expect(try JSONValue(parsing: cleaned.standardOutput)["deleted"] == 0)
    }

    @Test func badInputAndAnUnreachableServerGetTheirExitStatuses() async throws {
        defer {
            simulator.stop()
            directory.remove()
        }
        try await run(["register-soup", "accounts", "--index", "Id:string"], connected: false)
        let missing = try await run(
            ["sync-down", "--soup", "accounts", "--target", #"{"type":"soql","query":"SELECT Id FROM Account"}"#],
            expecting: 2, connected: false)
        #expect(missing.standardError.contains("needs a Salesforce connection"))
        #expect(missing.standardError.split(separator: "\n").count == 1)
        let badTarget = try await run(
            ["sync-down", "--soup", "accounts", "--target", #"{"type":"nope"}"#], expecting: 2)
        #expect(badTarget.standardError.split(separator: "\n").count == 1)
        let notJSON = try await run(["sync-down", "--soup", "accounts", "--target", "{"], expecting: 2)
        #expect(notJSON.standardError.hasPrefix("msync: "))
        try await run(["resync", "nope"], expecting: 2)
        try await run(
            ["sync-down", "--soup", "nope", "--target", #"{"type":"soql","query":"SELECT Id FROM Account"}"#],
            expecting: 2)

        let unreachable = try await msync.run([
            "sync-down", "--soup", "accounts", "--target", #"{"type":"soql","query":"SELECT Id FROM Account"}"#,
            "--store", directory.appending("store").path, "--instance-url", "http://127.0.0.1:1", "--access-token", "x",
        ])
        #expect(unreachable.status == 4, "\(unreachable.standardError)")
        #expect(unreachable.standardError.contains("FAILED"))

        // An expired (here: wrong) token and no refresh token: the server refuses the login.
        let refused = try await msync.run([
            "sync-down", "--soup", "accounts", "--target", #"{"type":"soql","query":"SELECT Id FROM Account"}"#,
            "--store", directory.appending("store").path, "--instance-url", simulator.url, "--access-token", "expired",
        ])
        #expect(refused.status == 4, "\(refused.standardError)")
        let failureLines = refused.standardError.split(separator: "\n").filter { $0.hasPrefix("msync: ") }
        #expect(failureLines.count == 1)
        #expect(failureLines.first?.contains("authenticationFailed") == true)
    }
}
