import EventJournal
import Foundation
import LosslessJSON
import Soups
import SyncTesting
import Testing

@Suite struct StoreConfigTests {
    /// The shape of Mobile SDK's sample `userstore.json`.
    static let userStore = """
        {
          "soups": [
            {
              "soupName": "accounts",
              "indexes": [
                {"path": "Id", "type": "string"},
                {"path": "Name", "type": "full_text"},
                {"path": "__local__", "type": "string"},
                {"path": "__locally_created__", "type": "string"},
                {"path": "__locally_updated__", "type": "string"},
                {"path": "__locally_deleted__", "type": "string"},
                {"path": "__sync_id__", "type": "integer"}
              ]
            },
            {
              "soupName": "contacts",
              "indexes": [
                {"path": "Id", "type": "string"},
                {"path": "AccountId", "type": "string"},
                {"path": "Rating", "type": "floating"},
                {"path": "attributes.type", "type": "json1"}
              ]
            }
          ]
        }
        """
    static let globalStore = #"{"soups": [{"soupName": "settings", "indexes": [{"path": "key", "type": "string"}]}]}"#

    @Test func userAndGlobalStoreFilesRegisterTheirSoupsInTheirOwnStores() throws {
        let user = try SoupFixture("user-store")
        defer { user.remove() }
        let global = try SoupFixture("global-store")
        defer { global.remove() }
        let files = user.directory.appending("config")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        try Data(Self.userStore.utf8).write(to: files.appendingPathComponent("userstore.json"))
        try Data(Self.globalStore.utf8).write(to: files.appendingPathComponent("globalstore.json"))

        let userConfig = try StoreConfig(parsing: Data(contentsOf: files.appendingPathComponent("userstore.json")))
        let globalConfig = try StoreConfig(parsing: Data(contentsOf: files.appendingPathComponent("globalstore.json")))
        #expect(try user.store.register(userConfig) == ["accounts", "contacts"])
        #expect(try global.store.register(globalConfig) == ["settings"])
        #expect(try user.store.soupNames() == ["accounts", "contacts"])
        #expect(try global.store.soupNames() == ["settings"])
        #expect(try user.store.indexSpecs(of: "accounts").count == 7)
        #expect(
            try user.store.indexSpecs(of: "contacts").map(\.type) == [.string, .string, .floating, .json1])
        // Loading again, as an app does at every start, registers nothing and appends nothing.
        let sequence = try user.journal.lastSequence()
        #expect(try user.store.register(userConfig).isEmpty)
        #expect(try user.journal.lastSequence() == sequence)
    }
}
