import Foundation
import LosslessJSON
import SyncTesting
import Testing

/// `msync` sets up, runs and re-runs the parent/children, briefcase, layout and metadata
/// targets of a usersyncs.json against the built `salesforce-simulator` (the demo org).
@Suite(.serialized) struct MSyncRelatedTargetToolTests {
    let msync: BuiltProduct
    let directory: TemporaryDirectory
    let simulator: SimulatorProcess

    init() throws {
        msync = try BuiltProduct("msync")
        directory = try TemporaryDirectory("msync-related")
        simulator = try SimulatorProcess(["--seed", "5"])
    }

    @discardableResult
    private func run(_ arguments: [String], expecting status: Int32 = 0, connected: Bool = true) async throws
        -> BuiltProduct.Output
    {
        let output = try await msync.run(
            arguments + ["--store", directory.appending("store").path]
                + (connected ? simulator.connectionArguments : []))
        #expect(output.status == status, "\(arguments): \(output.standardError)")
        return output
    }

    private func json(_ arguments: [String]) async throws -> JSONValue {
        try await JSONValue(parsing: try run(arguments).standardOutput)
    }

    static let stores = #"""
        {"soups": [
          {"soupName": "accounts", "indexes": [{"path": "Id", "type": "string"}, {"path": "Name", "type": "string"}]},
          {"soupName": "contacts", "indexes": [{"path": "Id", "type": "string"}, {"path": "AccountId", "type": "string"},
                                               {"path": "LastName", "type": "string"}]},
          {"soupName": "layouts", "indexes": [{"path": "Id", "type": "string"}]},
          {"soupName": "metadata", "indexes": [{"path": "Id", "type": "string"}]}]}
        """#

    static let relationship = #"""
        "parent": {"sobjectType": "Account", "soupName": "accounts"},
        "children": {"sobjectType": "Contact", "sobjectTypePlural": "Contacts", "soupName": "contacts",
                     "parentIdFieldName": "AccountId"},
        "relationshipType": "MASTER_DETAIL"
        """#

    static let syncs = """
        {"syncs": [
          {"syncName": "treeDown", "syncType": "syncDown", "soupName": "accounts",
           "target": {"type": "parent_children", \(relationship),
                      "parentFieldlist": ["Name"], "childrenFieldlist": ["LastName", "AccountId"],
                      "parentSoqlFilter": "ExternalId__c like 'ACC-1_'"},
           "options": {"mergeMode": "LEAVE_IF_CHANGED"}},
          {"syncName": "treeUp", "syncType": "syncUp", "soupName": "accounts",
           "target": {"androidImpl": "com.salesforce.androidsdk.mobilesync.target.ParentChildrenSyncUpTarget",
                      \(relationship), "createFieldlist": ["Name"], "updateFieldlist": ["Name"],
                      "childrenCreateFieldlist": ["LastName"], "childrenUpdateFieldlist": ["LastName"]},
           "options": {"mergeMode": "OVERWRITE"}},
          {"syncName": "briefcase", "syncType": "syncDown", "soupName": "does-not-matter",
           "target": {"type": "briefcase", "infos": [{"sobjectType": "Account", "fieldlist": ["Name"], "soupName": "accounts"}]},
           "options": {"mergeMode": "OVERWRITE"}},
          {"syncName": "layout", "syncType": "syncDown", "soupName": "layouts",
           "target": {"type": "layout", "sobjectType": "Contact", "layoutType": "Compact"},
           "options": {"mergeMode": "OVERWRITE"}},
          {"syncName": "metadata", "syncType": "syncDown", "soupName": "metadata",
           "target": {"type": "metadata", "sobjectType": "Contact"}, "options": {"mergeMode": "OVERWRITE"}}
        ]}
        """

    @Test func setupRunsEveryNewTargetAndSyncsUpATreeCreatedWithMsync() async throws {
        defer {
            simulator.stop()
            directory.remove()
        }
        let stores = directory.appending("userstore.json")
        let syncs = directory.appending("usersyncs.json")
        try Data(Self.stores.utf8).write(to: stores)
        try Data(Self.syncs.utf8).write(to: syncs)
        let setup = try await json(["setup", "--store-config", stores.path, "--syncs-config", syncs.path, "--json"])
        #expect(setup["syncs"]?.array?.count == 5)

        let down = try await json(["resync", "treeDown"])
        #expect(down["status"] == "DONE")
        #expect(down["totalSize"] == 10)
        let contacts = try await json(["query", "contacts", "--json", "--page-size", "1000"])
        #expect(contacts.array?.count == 30)

        let parent = try await json([
            "create", "accounts", #"{"attributes":{"type":"Account"},"Name":"Made by msync"}"#,
        ])
        let localId = try #require(parent["Id"]?.string)
        try await run([
            "create", "contacts", #"{"attributes":{"type":"Contact"},"LastName":"Child","AccountId":"\#(localId)"}"#,
        ])
        let up = try await json(["resync", "treeUp"])
        #expect(up["status"] == "DONE")
        #expect(up["syncUpSummary"]?["succeeded"] == 2)
        #expect(try await run(["dirty", "contacts", "--json"]).standardOutput == "[]\n")
        let child = try await json(["query", "contacts", "--exact", "LastName=Child", "--json"]).array?.first
        let uploaded = try await json(["query", "accounts", "--exact", "Name=Made by msync", "--json"]).array?.first
        #expect(child?["AccountId"] == uploaded?["Id"])
        #expect(uploaded?["Id"]?.string?.hasPrefix("001") == true)

        #expect(try await json(["resync", "briefcase"])["status"] == "DONE")
        #expect(try await json(["resync", "layout"])["status"] == "DONE")
        #expect(try await json(["resync", "metadata"])["status"] == "DONE")
        let layout = try await json(["get", "layouts", "Contact-null-Compact-null-null"])
        #expect(layout["objectApiName"] == "Contact")
        #expect(try await json(["get", "metadata", "Contact"])["keyPrefix"] == "003")
        #expect(try await json(["clean-ghosts", "treeDown", "--json"])["deleted"] == 0)
    }
}
