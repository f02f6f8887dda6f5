import Foundation
import SyncCore
import SyncTesting
import Testing

/// The soup-level commands of the built `msync` binary: register on an existing soup, alter,
/// clear, drop, upsert by external id and counting queries.
@Suite struct MSyncSoupAdminToolTests {
    let msync: BuiltProduct
    let directory: TemporaryDirectory
    let store: String

    init() throws {
        msync = try BuiltProduct("msync")
        directory = try TemporaryDirectory("msync-admin")
        store = directory.appending("store").path
    }

    @discardableResult
    private func run(_ arguments: [String], expecting status: Int32 = 0) throws -> BuiltProduct.Output {
        let output = try msync.run(arguments + ["--store", store])
        #expect(output.status == status, "\(arguments): \(output.standardError)")
        return output
    }

    private func json(_ arguments: [String]) throws -> JSONValue {
        try JSONValue(parsing: try run(arguments + ["--json"]).standardOutput)
    }

    private func names(_ arguments: [String]) throws -> [String] {
        try json(["query", "accounts"] + arguments).array?.compactMap { $0["Name"]?.string } ?? []
    }

    @Test func registeringAnExistingSoupPrintsTheIndexesItHoldsAndSaysNothingChanged() throws {
        defer { directory.remove() }
        let first = try run(["register-soup", "accounts", "--index", "Id:string"])
        #expect(first.standardOutput == "soup accounts registered: Id:string\n")
        let again = try run(["register-soup", "accounts", "--index", "Id:string", "--index", "Name:string"])
        #expect(again.standardOutput == "soup accounts exists, nothing changed: Id:string\n")
        #expect(again.standardError.contains("exists with other indexes; use alter-soup"))
        let document = try json(["register-soup", "accounts", "--index", "Name:string"])
        #expect(document == ["soup": "accounts", "indexes": ["Id:string"], "changed": false])
        try run(["query", "accounts", "--exact", "Name=x"], expecting: 2)
    }

    @Test func alterSoupChangesTheIndexesAndComputesNewOnesOnlyWithReindex() throws {
        defer { directory.remove() }
        for soup in ["accounts", "later"] {
            try run(["register-soup", soup, "--index", "Id:string"])
            try run(["create", soup, #"{"Name":"Acme"}"#])
        }
        let altered = try json([
            "alter-soup", "accounts", "--index", "Id:string", "--index", "Name:string", "--reindex",
        ])
        #expect(altered["indexes"] == ["Id:string", "Name:string"])
        #expect(try names(["--exact", "Name=Acme"]) == ["Acme"])
        try run(["alter-soup", "later", "--index", "Id:string", "--index", "Name:string"])
        let unindexed = try json(["query", "later", "--exact", "Name=Acme"])
        #expect(unindexed == [], "without --reindex the new index holds null until a record is saved again")
        #expect(try json(["soups"]) == ["accounts", "later"])
    }

    @Test func clearSoupKeepsTheSoupAndNeverReusesEntryIds() throws {
        defer { directory.remove() }
        try run(["register-soup", "accounts", "--index", "Id:string"])
        try run(["create", "accounts", #"{"Name":"One"}"#])
        try run(["create", "accounts", #"{"Name":"Two"}"#])
        #expect(try run(["clear-soup", "accounts"]).standardOutput == "soup accounts cleared: 2 records removed\n")
        #expect(try run(["query", "accounts", "--count"]).standardOutput == "0\n")
        #expect(try json(["soups"]) == ["accounts"])
        let created = try JSONValue(parsing: try run(["create", "accounts", #"{"Name":"Three"}"#]).standardOutput)
        #expect(created["_soupEntryId"] == 3)
    }

    @Test func dropSoupRemovesTheSoupAndItsRecords() throws {
        defer { directory.remove() }
        try run(["register-soup", "accounts", "--index", "Id:string"])
        try run(["create", "accounts", #"{"Name":"One"}"#])
        #expect(try json(["drop-soup", "accounts"]) == ["dropped": "accounts"])
        #expect(try json(["soups"]) == [])
        try run(["query", "accounts"], expecting: 2)
        try run(["register-soup", "accounts", "--index", "Id:string"])
        #expect(try run(["query", "accounts", "--count"]).standardOutput == "0\n")
    }

    @Test func upsertByExternalIdReplacesTheRecordWithThatValueOrCreatesOne() throws {
        defer { directory.remove() }
        try run(["register-soup", "accounts", "--index", "Id:string", "--index", "ExternalId__c:string"])
        let created = try JSONValue(
            parsing: try run([
                "upsert", "accounts", #"{"ExternalId__c":"E-1","Name":"First"}"#, "--external-id-path", "ExternalId__c",
            ]).standardOutput)
        let replaced = try JSONValue(
            parsing: try run([
                "upsert", "accounts", #"{"ExternalId__c":"E-1","Name":"Second"}"#, "--external-id-path",
                "ExternalId__c",
            ]).standardOutput)
        #expect(replaced["_soupEntryId"] == created["_soupEntryId"])
        #expect(replaced["__local__"] == nil, "a SmartStore upsert sets no local-change flags")
        try run([
            "upsert", "accounts", #"{"ExternalId__c":"E-2","Name":"Other"}"#, "--external-id-path", "ExternalId__c",
        ])
        #expect(try names([]) == ["Second", "Other"])
        let byEntryId = try JSONValue(
            parsing: try run(["upsert", "accounts", #"{"_soupEntryId":2,"Name":"Renamed"}"#]).standardOutput)
        #expect(byEntryId["_soupEntryId"] == 2)
        #expect(try names([]) == ["Second", "Renamed"])
    }

    @Test func queryCountCountsEveryMatchWhateverThePage() throws {
        defer { directory.remove() }
        try run(["register-soup", "accounts", "--index", "Name:string", "--index", "Notes:full_text"])
        for name in ["Acme", "Beta", "Gamma"] {
            try run(["create", "accounts", #"{"Name":"\#(name)","Notes":"note of \#(name)"}"#])
        }
        #expect(try run(["query", "accounts", "--count"]).standardOutput == "3\n")
        #expect(try run(["query", "accounts", "--count", "--page-size", "1", "--page", "2"]).standardOutput == "3\n")
        #expect(try run(["query", "accounts", "--count", "--like", "Name=%a"]).standardOutput == "2\n")
        #expect(try run(["query", "accounts", "--count", "--match", "gamma OR beta"]).standardOutput == "2\n")
        #expect(try run(["query", "accounts", "--count", "--json"]).standardOutput == "3\n")
    }
}
