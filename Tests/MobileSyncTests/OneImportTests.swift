import Foundation
import MobileSync
import Testing

/// An app's code needs `import MobileSync` alone (and Foundation for its URLs): this file
/// imports nothing else, and compiles the getting-started article's opening steps, so a public
/// API that names a type of a module MobileSync does not re-export fails to build here.
@Suite struct OneImportTests {
    @Test func theArticlesFirstStepsNeedOnlyMobileSync() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "one-import-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let logger = Logger.discarding
        var options = JournalOptions()
        options.retention = .appDefault
        let store = try SyncStore(
            directory: directory, clock: ManualWallClock(), options: options, logger: logger)
        try store.soups.registerSoup(
            "accounts", indexSpecs: [IndexSpec(path: "Id", type: .string), IndexSpec(path: "Name", type: .string)])
        let record: JSONValue = try store.soups.createLocally(
            "accounts", ["Name": "Acme", "attributes": ["type": "Account"]])
        #expect(record["__local__"] == true)
        let client = SalesforceClient(
            credentials: SalesforceCredentials(
                instanceURL: try #require(URL(string: "http://127.0.0.1:1")), accessToken: "unused"),
            logger: logger)
        let manager = try SyncManager(store: store, client: client, clock: ManualWallClock(), logger: logger)
        #expect(try store.soups.query(QuerySpec.all("accounts", orderPath: "Name", pageSize: 10)).count == 1)
        _ = manager
    }
}
