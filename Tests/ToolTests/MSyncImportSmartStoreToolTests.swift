import Foundation
import LosslessJSON
import Soups
import SyncTesting
import Testing

/// `msync import-smartstore` end to end: a SmartStore file becomes a store the other commands
/// read, and a file that is not one exits 2 and leaves no store behind.
@Suite struct MSyncImportSmartStoreToolTests {
    let msync: BuiltProduct
    let replay: BuiltProduct
    let directory: TemporaryDirectory

    init() throws {
        (msync, replay, directory) = try ToolWorkspace.make("msync-import")
    }

    /// A SmartStore file with one soup of two records, one of them dirty, and one sync down.
    private func writeSmartStore() throws -> String {
        let url = directory.appending("smartstore.db")
        let fixture = try SmartStoreFixture(url: url)
        defer { fixture.close() }
        try fixture.registerSoup(
            "accounts", indexSpecs: [IndexSpec(path: "Id", type: .string), IndexSpec(path: "__local__", type: .string)])
        try fixture.registerSoup("syncs_soup", indexSpecs: [IndexSpec(path: "type", type: .json1)])
        try fixture.insert("accounts", ["Id": "001000000000001AAA", "__local__": false], created: 1, lastModified: 2)
        try fixture.insert(
            "accounts", ["Id": "001000000000002AAA", "Name": "Edited", "__local__": true, "__locally_updated__": true],
            created: 3, lastModified: 4)
        let sync: JSONValue = [
            "type": "syncDown", "name": "accounts", "soupName": "accounts",
            "target": ["type": "soql", "query": "SELECT Id, LastModifiedDate FROM Account"], "options": [:],
            "status": "RUNNING", "maxTimeStamp": 1_672_531_260_000,
        ]
        try fixture.insert("syncs_soup", sync, created: 5, lastModified: 5)
        return url.path
    }

    @Test func importsASmartStoreThatTheOtherCommandsThenRead() async throws {
        defer { directory.remove() }
        let store = directory.appending("store").path
        let imported = try await msync.run(["import-smartstore", try writeSmartStore(), "--store", store, "--json"])
        #expect(imported.status == 0, "\(imported.standardError)")
        let summary = try JSONValue(parsing: imported.standardOutput)
        #expect(summary["records"] == 2)
        #expect(summary["dirty"] == 1)
        #expect(summary["nextEntryId"] == 3)

        let dirty = try await msync.run(["dirty", "accounts", "--store", store, "--json"])
        #expect(dirty.status == 0, "\(dirty.standardError)")
        let records = try JSONValue(parsing: dirty.standardOutput).array ?? []
        #expect(records.map { $0["_soupEntryId"] } == [2])
        let status = try await msync.run(["status", "accounts", "--store", store, "--json"])
        #expect(status.status == 0, "\(status.standardError)")
        let state = try JSONValue(parsing: status.standardOutput)
        #expect(state["status"] == "STOPPED")
        #expect(state["maxTimeStamp"] == 1_672_531_260_000)
        let verify = try await replay.run(["verify", store])
        #expect(verify.status == 0, "\(verify.standardOutput) \(verify.standardError)")

        let again = try await msync.run(["import-smartstore", try writeSmartStore(), "--store", store])
        #expect(again.status == 2)
        #expect(again.standardError.contains("has entries already"), "\(again.standardError)")
    }

    @Test func aFileThatIsNotASmartStoreExitsTwoAndLeavesNoStore() async throws {
        defer { directory.remove() }
        let noise = directory.appending("noise.db")
        try Data(String(repeating: "noise ", count: 1_000).utf8).write(to: noise)
        let store = directory.appending("store")
        let output = try await msync.run(["import-smartstore", noise.path, "--store", store.path])
        #expect(output.status == 2)
        #expect(output.standardError.hasPrefix("msync: noise.db is not an SQLite database"), "\(output.standardError)")
        #expect(!FileManager.default.fileExists(atPath: store.path))

        let url = directory.appending("broken.db")
        let fixture = try SmartStoreFixture(url: url)
        try fixture.registerSoup("accounts", indexSpecs: [IndexSpec(path: "Id", type: .string)])
        let id = try fixture.insert("accounts", ["Id": "001"], created: 1, lastModified: 1)
        try fixture.setRawSoupColumn(table: "TABLE_1", entryId: id, to: "not json")
        fixture.close()
        let broken = try await msync.run(["import-smartstore", url.path, "--store", store.path])
        #expect(broken.status == 2)
        #expect(broken.standardError.contains("record 1 of TABLE_1"), "\(broken.standardError)")
        #expect(!FileManager.default.fileExists(atPath: store.path))
    }
}
