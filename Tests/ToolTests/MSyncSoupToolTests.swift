import Foundation
import LosslessJSON
import SyncTesting
import Testing

/// Drives the soup and record commands of the built `msync` binary end to end: records and
/// queries, register on an existing soup, alter, clear, drop, upsert by external id, counting.
@Suite struct MSyncSoupToolTests {
    let msync: BuiltProduct
    let directory: TemporaryDirectory
    let store: String

    init() throws {
        msync = try BuiltProduct("msync")
        directory = try TemporaryDirectory("msync")
        store = directory.appending("store").path
    }

    @discardableResult
    private func run(_ arguments: [String], expecting status: Int32 = 0) async throws -> BuiltProduct.Output {
        let output = try await msync.run(arguments + ["--store", store])
        #expect(output.status == status, "\(arguments): \(output.standardError)")
        return output
    }

    private func registerAccounts() async throws {
        try await run([
            "register-soup", "accounts", "--index", "Id:string", "--index", "Name:string", "--index",
            "Amount:integer", "--index", "Notes:full_text",
        ])
    }

    /// `msync compact` applies the `--retain-…` limits, then reports the store's file and
    /// live bytes; `--copy` writes a compact copy that `msync` opens with the same records.
    @Test func compactKeepsTheNewestHistoryAndWritesACompactCopy() async throws {
        defer { directory.remove() }
        try await registerAccounts()
        for n in 1...8 { try await run(["create", "accounts", #"{"Name":"Account \#(n)","Amount":\#(n)}"#]) }
        let copy = directory.appending("copy").path
        let output = try await run(["compact", "--retain-entries", "4", "--copy", copy])
        #expect(output.standardOutput.contains("compacted: horizon moved from entry 1 to"), "\(output.standardOutput)")
        #expect(output.standardOutput.contains("live bytes"))
        let records = try await msync.run(["query", "accounts", "--json", "--store", copy])
        #expect(records.status == 0, "\(records.standardError)")
        #expect((try JSONValue(parsing: records.standardOutput).array ?? []).count == 8)
        try await run(["compact", "--keep-all-history", "--retain-days", "1"], expecting: 2)
    }

    @Test func createsQueriesUpdatesAndDeletesRecords() async throws {
        defer { directory.remove() }
        try await registerAccounts()
        #expect(try await run(["soups", "--json"]).standardOutput == "[\"accounts\"]\n")
        let created = try await JSONValue(
            parsing: try run(["create", "accounts", #"{"Name":"Acme","Amount":5}"#]).standardOutput)
        #expect(created["__local__"] == true)
        #expect(created["__locally_created__"] == true)
        let id = try #require(created["Id"]?.string)
        #expect(id.hasPrefix("local_"))
        try await run(["create", "accounts", #"{"Name":"Zoë Industries","Amount":50,"Notes":"green tractors"}"#])

        let byId = try await JSONValue(parsing: try run(["get", "accounts", id]).standardOutput)
        #expect(byId["Name"] == "Acme")
        let byEntryId = try await JSONValue(parsing: try run(["get", "accounts", "2"]).standardOutput)
        #expect(byEntryId["Amount"] == 50)

        let updated = try await JSONValue(
            parsing: try run(["update", "accounts", id, #"{"Amount":7}"#]).standardOutput)
        #expect(updated["Amount"] == 7)
        #expect(updated["__locally_updated__"] == true)
        let deleted = try await JSONValue(parsing: try run(["delete", "accounts", "2"]).standardOutput)
        #expect(deleted["__locally_deleted__"] == true)

        func names(_ arguments: [String]) async throws -> [String] {
            let output = try await run(["query", "accounts"] + arguments + ["--json"]).standardOutput
            return try JSONValue(parsing: output).array?.compactMap { $0["Name"]?.string } ?? []
        }
        #expect(try await names([]) == ["Acme", "Zoë Industries"])
        #expect(try await names(["--range", "Amount=6..10"]) == ["Acme"])
        #expect(try await names(["--range", "Amount=8.."]) == ["Zoë Industries"])
        #expect(try await names(["--exact", "Name=Acme"]) == ["Acme"])
        #expect(try await names(["--like", "Name=zo%"]) == ["Zoë Industries"])
        #expect(try await names(["--match", "tract*"]) == ["Zoë Industries"])
        #expect(try await names(["--order-by", "Amount", "--descending"]) == ["Zoë Industries", "Acme"])
        #expect(try await names(["--page-size", "1", "--page", "1"]) == ["Zoë Industries"])
        let dirty = try await JSONValue(parsing: try run(["dirty", "accounts", "--json"]).standardOutput)
        #expect(dirty.array?.count == 2)

        let verify = try await BuiltProduct("journal-replay").run(["verify", store])
        #expect(verify.status == 0, "\(verify.standardOutput)")
    }

    @Test func matchTakesSmartStoreColumnFiltersAndAPathWithoutFullTextIsBadInput() async throws {
        defer { directory.remove() }
        try await run([
            "register-soup", "employees", "--index", "firstName:full_text", "--index", "lastName:full_text",
            "--index", "title:string",
        ])
        try await run(["create", "employees", #"{"firstName":"Eva","lastName":"Ng"}"#])
        try await run(["create", "employees", #"{"firstName":"Liam","lastName":"Eva"}"#])
        func names(_ expression: String) async throws -> [String] {
            let output = try await run(["query", "employees", "--match", expression, "--json"]).standardOutput
            return try JSONValue(parsing: output).array?.compactMap { $0["firstName"]?.string } ?? []
        }
        #expect(try await names("{employees:firstName}:Eva") == ["Eva"])
        #expect(try await names("{employees:lastName}:\"eva\" OR {employees:firstName}:eva") == ["Eva", "Liam"])
        let unindexed = try await run(["query", "employees", "--match", "{employees:title}:CEO"], expecting: 2)
        #expect(unindexed.standardError == "msync: soup 'employees' has no full_text index on 'title'\n")
        try await run(["query", "employees", "--match", "{employees:firstName}Eva"], expecting: 2)
    }

    @Test func globalOptionsWorkBeforeTheSubcommand() async throws {
        defer { directory.remove() }
        try await registerAccounts()
        let output = try await msync.run(["--store", store, "--json", "soups"])
        #expect(output.status == 0)
        #expect(output.standardOutput == "[\"accounts\"]\n")
    }

    @Test(arguments: [
        (["create", "nosuch", "{}"], "no soup"),
        (["create", "accounts", "[1]"], "JSON object"),
        (["create", "accounts", "{bad"], "not valid JSON"),
        (["query", "accounts", "--exact", "Missing=1"], "no index"),
        (["get", "accounts", "nope"], "no record"),
        (["update", "accounts", "nope", "{}"], "no record"),
        (["query", "accounts", "--range", "Amount=5"], "PATH=LO..HI"),
        (["register-soup", "empty"], "--index"),
        (["register-soup", "bad", "--index", "Name:text"], "bad index spec"),
        (["clear-soup", "nosuch"], "no soup"),
        (["drop-soup", "nosuch"], "no soup named 'nosuch'"),
        (["alter-soup", "nosuch", "--index", "Id:string"], "no soup"),
        (["alter-soup", "accounts"], "--index"),
        (["upsert", "accounts", #"{"Missing":"x"}"#, "--external-id-path", "Missing"], "no index on external-id path"),
        (["upsert", "accounts", #"{"Name":null}"#, "--external-id-path", "Name"], "value cannot be empty"),
        (["upsert", "accounts", #"{"Amount":1}"#, "--external-id-path", "Name"], "value cannot be empty"),
        (["upsert", "accounts", #"{"Name":"Acme"}"#, "--external-id-path", "Name"], "2 records with 'Name'"),
        (["query", "accounts", "--exact", "Missing=1", "--count"], "no index"),
    ])
    func badInputExitsTwoWithOneLineAndChangesNothing(arguments: [String], message: String) async throws {
        defer { directory.remove() }
        try await registerAccounts()
        try await run(["create", "accounts", #"{"Name":"Acme"}"#])
        try await run(["create", "accounts", #"{"Name":"Acme"}"#])
        let before = try await BuiltProduct("journal-replay").run(["info", store, "--json"]).standardOutput
        let output = try await msync.run(arguments + ["--store", store])
        #expect(output.status == 2)
        #expect(output.standardError.contains(message), "\(output.standardError)")
        #expect(!output.standardError.contains("Fatal error"))
        let after = try await BuiltProduct("journal-replay").run(["info", store, "--json"]).standardOutput
        #expect(try JSONValue(parsing: after)["lastSequence"] == JSONValue(parsing: before)["lastSequence"])
    }

    // MARK: - Soup commands

    private func json(_ arguments: [String]) async throws -> JSONValue {
        try await JSONValue(parsing: try run(arguments + ["--json"]).standardOutput)
    }

    private func names(_ arguments: [String]) async throws -> [String] {
        try await json(["query", "accounts"] + arguments).array?.compactMap { $0["Name"]?.string } ?? []
    }

    @Test func registeringAnExistingSoupPrintsTheIndexesItHoldsAndSaysNothingChanged() async throws {
        defer { directory.remove() }
        let first = try await run(["register-soup", "accounts", "--index", "Id:string"])
        #expect(first.standardOutput == "soup accounts registered: Id:string\n")
        let again = try await run(["register-soup", "accounts", "--index", "Id:string", "--index", "Name:string"])
        #expect(again.standardOutput == "soup accounts exists, nothing changed: Id:string\n")
        #expect(again.standardError.contains("exists with other indexes; use alter-soup"))
        let document = try await json(["register-soup", "accounts", "--index", "Name:string"])
        #expect(document == ["soup": "accounts", "indexes": ["Id:string"], "changed": false])
        try await run(["query", "accounts", "--exact", "Name=x"], expecting: 2)
    }

    @Test func alterSoupChangesTheIndexesAndComputesNewOnesOnlyWithReindex() async throws {
        defer { directory.remove() }
        for soup in ["accounts", "later"] {
            try await run(["register-soup", soup, "--index", "Id:string"])
            try await run(["create", soup, #"{"Name":"Acme"}"#])
        }
        let altered = try await json([
            "alter-soup", "accounts", "--index", "Id:string", "--index", "Name:string", "--reindex",
        ])
        #expect(altered["indexes"] == ["Id:string", "Name:string"])
        #expect(try await names(["--exact", "Name=Acme"]) == ["Acme"])
        try await run(["alter-soup", "later", "--index", "Id:string", "--index", "Name:string"])
        let unindexed = try await json(["query", "later", "--exact", "Name=Acme"])
        #expect(unindexed == [], "without --reindex the new index holds null until a record is saved again")
        #expect(try await json(["soups"]) == ["accounts", "later"])
    }

    @Test func clearSoupKeepsTheSoupAndNeverReusesEntryIds() async throws {
        defer { directory.remove() }
        try await run(["register-soup", "accounts", "--index", "Id:string"])
        try await run(["create", "accounts", #"{"Name":"One"}"#])
        try await run(["create", "accounts", #"{"Name":"Two"}"#])
        #expect(
            try await run(["clear-soup", "accounts"]).standardOutput == "soup accounts cleared: 2 records removed\n")
        #expect(try await run(["query", "accounts", "--count"]).standardOutput == "0\n")
        #expect(try await json(["soups"]) == ["accounts"])
        let created = try await JSONValue(
            parsing: try run(["create", "accounts", #"{"Name":"Three"}"#]).standardOutput)
        #expect(created["_soupEntryId"] == 3)
    }

    @Test func dropSoupRemovesTheSoupAndItsRecords() async throws {
        defer { directory.remove() }
        try await run(["register-soup", "accounts", "--index", "Id:string"])
        try await run(["create", "accounts", #"{"Name":"One"}"#])
        #expect(try await json(["drop-soup", "accounts"]) == ["dropped": "accounts"])
        #expect(try await json(["soups"]) == [])
        try await run(["query", "accounts"], expecting: 2)
        try await run(["register-soup", "accounts", "--index", "Id:string"])
        #expect(try await run(["query", "accounts", "--count"]).standardOutput == "0\n")
    }

    @Test func dropSoupAllRemovesEverySoup() async throws {
        defer { directory.remove() }
        try await run(["register-soup", "accounts", "--index", "Id:string"])
        try await run(["register-soup", "contacts", "--index", "Id:string"])
        #expect(try await json(["drop-soup", "--all"]) == ["dropped": ["accounts", "contacts"]])
        #expect(try await json(["soups"]) == [])
        try await run(["drop-soup"], expecting: 2)
        try await run(["drop-soup", "accounts", "--all"], expecting: 2)
    }

    @Test func upsertByExternalIdReplacesTheRecordWithThatValueOrCreatesOne() async throws {
        defer { directory.remove() }
        try await run(["register-soup", "accounts", "--index", "Id:string", "--index", "ExternalId__c:string"])
        let created = try await JSONValue(
            parsing: try run([
                "upsert", "accounts", #"{"ExternalId__c":"E-1","Name":"First"}"#, "--external-id-path", "ExternalId__c",
            ]).standardOutput)
        let replaced = try await JSONValue(
            parsing: try run([
                "upsert", "accounts", #"{"ExternalId__c":"E-1","Name":"Second"}"#, "--external-id-path",
                "ExternalId__c",
            ]).standardOutput)
        #expect(replaced["_soupEntryId"] == created["_soupEntryId"])
        #expect(replaced["__local__"] == nil, "a SmartStore upsert sets no local-change flags")
        try await run([
            "upsert", "accounts", #"{"ExternalId__c":"E-2","Name":"Other"}"#, "--external-id-path", "ExternalId__c",
        ])
        #expect(try await names([]) == ["Second", "Other"])
        let byEntryId = try await JSONValue(
            parsing: try run(["upsert", "accounts", #"{"_soupEntryId":2,"Name":"Renamed"}"#]).standardOutput)
        #expect(byEntryId["_soupEntryId"] == 2)
        #expect(try await names([]) == ["Second", "Renamed"])
    }

    @Test func queryCountCountsEveryMatchWhateverThePage() async throws {
        defer { directory.remove() }
        try await run(["register-soup", "accounts", "--index", "Name:string", "--index", "Notes:full_text"])
        for name in ["Acme", "Beta", "Gamma"] {
            try await run(["create", "accounts", #"{"Name":"\#(name)","Notes":"note of \#(name)"}"#])
        }
        #expect(try await run(["query", "accounts", "--count"]).standardOutput == "3\n")
        #expect(
            try await run(["query", "accounts", "--count", "--page-size", "1", "--page", "2"]).standardOutput == "3\n")
        #expect(try await run(["query", "accounts", "--count", "--like", "Name=%a"]).standardOutput == "2\n")
        #expect(try await run(["query", "accounts", "--count", "--match", "gamma OR beta"]).standardOutput == "2\n")
        #expect(try await run(["query", "accounts", "--count", "--json"]).standardOutput == "3\n")
    }
}
