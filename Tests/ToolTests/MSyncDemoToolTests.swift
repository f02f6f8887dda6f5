import Foundation
import SyncTesting
import Testing

/// Runs `msync demo` end to end, as the README's main-job command does.
@Suite struct MSyncDemoToolTests {
    @Test func demoRunsAWholeSessionAndLeavesAJournalThatVerifies() async throws {
        let directory = try TemporaryDirectory("demo")
        defer { directory.remove() }
        let store = directory.appending("demo-store")
        let demo = try await BuiltProduct("msync").run(["demo", "--store", store.path])
        #expect(demo.status == 0, "\(demo.standardError)")
        let output = demo.standardOutput
        for expected in [
            "1. Set up from userstore.json and usersyncs.json", "DONE: 1000 records in the soup",
            "dirty records: 3", "DONE: sent 3, succeeded 3, failed 0", "where LastModifiedDate >",
            // The org's records were modified over the past year: the reSync fetches the changes only.
            "DONE: fetched 4 records, 4 changed since",
            "deleted 1 ghost record(s); 999 records in the soup",
            "Industry \"Retail\" (here), BillingCity \"Lyon\" (there)",
            "(renamed here)\", there \"", "open conflicts: 0", "sync up DONE: sent 1;", "\"Industry\":\"Retail\"",
            "ok: ",
        ] {
            #expect(output.contains(expected), "missing: \(expected)")
        }
        #expect(demo.standardError.contains("accounts: 100%"))
        // The store is at `--store` itself: both tools open it there.
        let replay = try BuiltProduct("journal-replay")
        #expect(try await replay.run(["verify", store.path]).status == 0)
        let soups = try await BuiltProduct("msync").run(["--store", store.path, "soups"])
        #expect(soups.status == 0, "\(soups.standardError)")
        #expect(soups.standardOutput.contains("accounts"))
        #expect(output.contains("msync --store \(store.path) status"))
        // The blame command the demo prints works on the record it created.
        let blameLine = try #require(output.split(separator: "\n").first { $0.contains("journal-replay blame") })
        let blameArguments = blameLine.split(separator: " ").dropFirst(3).map(String.init)
        let blame = try await replay.run(blameArguments)
        #expect(blame.status == 0, "\(blame.standardError)")
        #expect(blame.standardOutput.contains("created locally"))
        #expect(blame.standardOutput.contains("created on the server as"))
        #expect(!blame.standardOutput.contains("kept the local change"))  // clean once uploaded
    }

    @Test func demoRefusesToReplaceADirectoryItDidNotCreate() async throws {
        let directory = try TemporaryDirectory("demo")
        defer { directory.remove() }
        try Data("keep me".utf8).write(to: directory.appending("precious.txt"))
        let demo = try await BuiltProduct("msync").run(["demo", "--store", directory.url.path])
        #expect(demo.status == 2)
        #expect(FileManager.default.fileExists(atPath: directory.appending("precious.txt").path))
    }
}
