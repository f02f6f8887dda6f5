import Determinism
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import Soups
import SyncTesting
import Testing

/// `msync smart-query` end to end: rows, `--json`, `--count`, paging, `--args`, `--explain`,
/// one-line errors with exit status 2; rows fetched by a sync down; and a smart query in this
/// process that follows what another process commits.
@Suite(.serialized, .timeLimit(.minutes(5))) struct MSyncSmartQueryToolTests {
    let msync: BuiltProduct
    let directory: TemporaryDirectory

    init() throws {
        msync = try BuiltProduct("msync")
        directory = try TemporaryDirectory("msync-smart")
    }

    private var store: String {
        directory.appending("store").path
    }

    @discardableResult
    private func run(_ arguments: [String], expecting status: Int32 = 0, connection: [String] = []) async throws
        -> BuiltProduct.Output
    {
        let output = try await msync.run(arguments + ["--store", store] + connection)
        #expect(output.status == status, "\(arguments): \(output.standardError)")
        return output
    }

    private func loadEmployees() async throws {
        try await run([
            "register-soup", "employees", "--index", "lastName:string", "--index", "deptCode:string", "--index",
            "salary:integer",
        ])
        for (name, dept, salary) in [("Haas", "A00", 200_000), ("Kwan", "A00", 100_000), ("Geyer", "B00", 102_000)] {
            try await run([
                "create", "employees", #"{"lastName":"\#(name)","deptCode":"\#(dept)","salary":\#(salary)}"#,
            ])
        }
    }

    @Test func printsRowsAsJSONArraysCountsPagesAndBindsArguments() async throws {
        defer { directory.remove() }
        try await loadEmployees()
        let sql =
            "select {employees:deptCode}, count(*), sum({employees:salary}) from {employees} "
            + "group by {employees:deptCode} order by {employees:deptCode}"
        #expect(try await run(["smart-query", sql]).standardOutput == "[\"A00\",2,300000]\n[\"B00\",1,102000]\n")
        #expect(
            try await run(["smart-query", sql, "--json"]).standardOutput == "[[\"A00\",2,300000],[\"B00\",1,102000]]\n")
        #expect(try await run(["smart-query", sql, "--count"]).standardOutput == "2\n")
        await #expect(
            try run(["smart-query", sql, "--page-size", "1", "--page", "1"]).standardOutput == "[\"B00\",1,102000]\n")
        let byName = "select {employees:_soup} from {employees} where {employees:lastName} = ?"
        let record = try await JSONValue(
            parsing: try run(["smart-query", byName, "--args", #"["Kwan"]"#]).standardOutput)
        #expect(record.array?.first?["salary"] == 100_000)
    }

    @Test func explainsThePlanAndTheHelpDescribesTheCommand() async throws {
        defer { directory.remove() }
        try await loadEmployees()
        let plan = try await run([
            "smart-query", "select {employees:lastName} from {employees} where {employees:deptCode} = 'A00'",
            "--explain",
        ]).standardOutput
        #expect(plan.hasPrefix("SELECT * FROM ( select TABLE_1_0 from TABLE_1 where TABLE_1_1 = 'A00' ) LIMIT 0, 10\n"))
        #expect(plan.contains("VIRTUAL TABLE INDEX"))
        let help = try await msync.run(["help", "smart-query"])
        #expect(help.standardOutput.contains("--explain"))
        #expect(help.standardOutput.contains("{soup:_soupEntryId}"))
    }

    @Test func badQueriesExitTwoWithOneLine() async throws {
        defer { directory.remove() }
        try await loadEmployees()
        let cases = [
            (["smart-query", "delete from {employees}"], "msync: Only SELECT are supported\n"),
            (["smart-query", "select * from {nope}"], "msync: Unknown soup 'nope' at character 14\n"),
            (
                ["smart-query", "select 1", "--args", "3"],
                "msync: --args must be a JSON array, such as '[\"Acme\", 3]'\n"
            ),
        ]
        for (arguments, message) in cases {
            #expect(try await run(arguments, expecting: 2).standardError == message)
        }
        let sqlite = try await run(["smart-query", "select nosuchcolumn from {employees}"], expecting: 2).standardError
        #expect(sqlite.hasPrefix("msync: SQLite: no such column: nosuchcolumn"))
        #expect(sqlite.split(separator: "\n").count == 1)
        try await run(["smart-query", "select 1", "--count", "--explain"], expecting: 2)
    }

    @Test func seesTheRecordsASyncDownFetched() async throws {
        defer { directory.remove() }
        let simulator = try SimulatorProcess(["--seed", "5"])
        defer { simulator.stop() }
        try await run(["register-soup", "accounts", "--index", "Id:string", "--index", "Industry:string"])
        let target =
            #"{"type":"soql","query":"SELECT Id, Name, Industry, LastModifiedDate FROM Account WHERE ExternalId__c LIKE 'ACC-1_'"}"#
        let down = try await JSONValue(
            parsing: try run(
                ["sync-down", "--soup", "accounts", "--target", target], connection: simulator.connectionArguments
            ).standardOutput)
        #expect(down["status"] == "DONE")
        let records = try await JSONValue(
            parsing: try run(["query", "accounts", "--json", "--page-size", "100"]).standardOutput)
        var expected: [String: Int] = [:]
        for record in records.array ?? [] { expected[record["Industry"]?.string ?? "", default: 0] += 1 }
        let rows = try await JSONValue(
            parsing: try run([
                "smart-query",
                "select {accounts:Industry}, count(*) from {accounts} where {accounts:__local__} = 0 "
                    + "group by {accounts:Industry}", "--json", "--page-size", "100",
            ]).standardOutput)
        var counted: [String: Int] = [:]
        for row in rows.array ?? [] {
            counted[row.array?[0].string ?? "", default: 0] = Int(row.array?[1].number?.int64Value ?? 0)
        }
        #expect(!counted.isEmpty)
        #expect(counted == expected)
    }

    @Test func aSmartQueryInThisProcessFollowsWritesOfAnotherProcess() async throws {
        defer { directory.remove() }
        var options = JournalOptions()
        options.observation = ObservationOptions(pollInterval: .milliseconds(5))
        let syncStore = try SyncStore(
            directory: directory.appending("store"), clock: ManualWallClock(), idGenerator: IncrementingIDGenerator(),
            options: options, logger: .discarding)
        try syncStore.soups.registerSoup("employees", indexSpecs: [IndexSpec(path: "lastName", type: .string)])
        let spec = QuerySpec.smart(sql: "select {employees:lastName} from {employees} order by {employees:lastName}")
        var rows = syncStore.soups.observeQuery(spec).makeAsyncIterator()
        #expect(try await rows.next() == [])
        let child = try msync.start(["create", "employees", #"{"lastName":"Stern"}"#, "--store", store], quietly: true)
        await child.exited()
        #expect(child.terminationStatus == 0)
        #expect(try await rows.next() == [["Stern"]])
        #expect(try syncStore.soups.query(spec) == [["Stern"]])
    }
}
