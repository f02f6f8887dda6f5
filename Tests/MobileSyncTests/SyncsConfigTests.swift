import LosslessJSON
import MobileSync
import Testing

@Suite struct SyncsConfigTests {
    static let sample = #"""
        {
          "syncs": [
            {"syncName": "soqlSyncDown", "syncType": "syncDown", "soupName": "accounts",
             "target": {"type": "soql", "query": "SELECT Id, Name, LastModifiedDate FROM Account", "maxBatchSize": 200},
             "options": {"mergeMode": "OVERWRITE"}},
            {"syncName": "soslSyncDown", "syncType": "syncDown", "soupName": "accounts",
             "target": {"type": "sosl", "query": "FIND {Joe} IN NAME FIELDS RETURNING Account"},
             "options": {"mergeMode": "LEAVE_IF_CHANGED"}},
            {"syncName": "mruSyncDown", "syncType": "syncDown", "soupName": "accounts",
             "target": {"type": "mru", "sobjectType": "Account", "fieldlist": ["Name", "Description"]},
             "options": {"mergeMode": "OVERWRITE"}},
            {"syncName": "refreshSyncDown", "syncType": "syncDown", "soupName": "accounts",
             "target": {"type": "refresh", "sobjectType": "Account", "fieldlist": ["Name"], "soupName": "accounts"},
             "options": {"mergeMode": "LEAVE_IF_CHANGED"}},
            {"syncName": "customSyncDown", "syncType": "syncDown", "soupName": "accounts",
             "target": {"androidImpl": "com.example.PagedTarget", "iOSImpl": "PagedTarget"},
             "options": {"mergeMode": "OVERWRITE"}},
            {"syncName": "collectionSyncUp", "syncType": "syncUp", "soupName": "accounts",
             "target": {"idFieldName": "IdX", "modificationDateFieldName": "LastModifiedDateX", "externalIdFieldName": "ExternalIdX"},
             "options": {"fieldlist": ["Name", "Description"], "mergeMode": "OVERWRITE"}},
            {"syncName": "batchSyncUp", "syncType": "syncUp", "soupName": "accounts",
             "target": {"iOSImpl": "SFBatchSyncUpTarget", "androidImpl": "com.salesforce.androidsdk.mobilesync.target.BatchSyncUpTarget",
                        "idFieldName": "IdX", "modificationDateFieldName": "LastModifiedDateX", "externalIdFieldName": "ExternalIdX"},
             "options": {"fieldlist": ["Name", "Description"], "mergeMode": "OVERWRITE"}},
            {"syncName": "singleSyncUp", "syncType": "syncUp", "soupName": "accounts",
             "target": {"androidImpl": "com.salesforce.androidsdk.mobilesync.target.SyncUpTarget", "createFieldlist": ["Name"]},
             "options": {"mergeMode": "LEAVE_IF_CHANGED"}}
          ]
        }
        """#

    @Test func parsesEverySupportedEntryKind() throws {
        let config = try SyncsConfig(bytes: Array(Self.sample.utf8))
        #expect(
            config.entries.map(\.name) == [
                "soqlSyncDown", "soslSyncDown", "mruSyncDown", "refreshSyncDown", "customSyncDown", "collectionSyncUp",
                "batchSyncUp", "singleSyncUp",
            ])
        let soql = try #require(config.entries.first)
        guard case .syncDown(let target) = soql.target, case .soql(let query, let size) = target.kind else {
            Issue.record("first entry is not a SOQL sync down")
            return
        }
        #expect(query == "select Id, Name, LastModifiedDate from Account order by LastModifiedDate")
        #expect(size == 200)
        let kinds: [SyncUpTargetDescriptor.Kind] = config.entries.compactMap {
            if case .syncUp(let target) = $0.target { return target.kind }
            return nil
        }
        #expect(kinds == [.collection, .batch, .singleRecord])
        guard case .syncDown(let custom) = config.entries[4].target else {
            Issue.record("custom entry is not a sync down")
            return
        }
        #expect(custom.kind == .custom(registryKey: "PagedTarget"))
        #expect(config.entries[5].options == SyncOptions(mergeMode: .overwrite, fieldlist: ["Name", "Description"]))
    }

    /// Mobile SDK's test config entries for the related-record targets (abridged field names).
    static let relatedSample = #"""
        {"syncs": [
          {"syncName": "parentChildrenSyncDown", "syncType": "syncDown", "soupName": "accounts",
           "target": {"type": "parent_children",
             "parent": {"idFieldName": "IdX", "sobjectType": "Account", "modificationDateFieldName": "LastModifiedDateX", "soupName": "accounts"},
             "parentFieldlist": ["IdX", "Name", "Description"],
             "children": {"parentIdFieldName": "AccountId", "idFieldName": "IdY", "sobjectType": "Contact",
                          "modificationDateFieldName": "LastModifiedDateY", "soupName": "contacts", "sobjectTypePlural": "Contacts"},
             "childrenFieldlist": ["LastName", "AccountId"], "relationshipType": "MASTER_DETAIL",
             "parentSoqlFilter": "NameX like 'James%'"},
           "options": {"mergeMode": "OVERWRITE"}},
          {"syncName": "briefcaseSyncDown", "syncType": "syncDown", "soupName": "does-not-matter",
           "target": {"type": "briefcase", "infos": [
             {"sobjectType": "Account", "fieldlist": ["Name", "Description"], "soupName": "accounts"},
             {"sobjectType": "Contact", "fieldlist": ["FirstName"], "idFieldName": "IdX",
              "modificationDateFieldName": "LastModifiedDateX", "soupName": "contacts"}]},
           "options": {"mergeMode": "OVERWRITE"}},
          {"syncName": "layoutSyncDown", "syncType": "syncDown", "soupName": "layouts",
           "target": {"type": "layout", "sobjectType": "Account", "formFactor": "Medium", "layoutType": "Compact",
                      "mode": "Edit", "recordTypeId": null},
           "options": {"mergeMode": "OVERWRITE"}},
          {"syncName": "metadataSyncDown", "syncType": "syncDown", "soupName": "metadata",
           "target": {"type": "metadata", "sobjectType": "Account"}, "options": {"mergeMode": "OVERWRITE"}},
          {"syncName": "parentChildrenSyncUp", "syncType": "syncUp", "soupName": "accounts",
           "target": {"iOSImpl": "SFParentChildrenSyncUpTarget",
             "androidImpl": "com.salesforce.androidsdk.mobilesync.target.ParentChildrenSyncUpTarget",
             "parent": {"idFieldName": "IdX", "sobjectType": "Account", "modificationDateFieldName": "LastModifiedDateX",
                        "soupName": "accounts", "externalIdFieldName": "ExternalIdX"},
             "createFieldlist": ["IdX", "Name", "Description"], "updateFieldlist": ["Name", "Description"],
             "children": {"parentIdFieldName": "AccountId", "idFieldName": "IdY", "sobjectType": "Contact",
                          "modificationDateFieldName": "LastModifiedDateY", "soupName": "contacts", "sobjectTypePlural": "Contacts"},
             "childrenCreateFieldlist": ["LastName", "AccountId"], "childrenUpdateFieldlist": ["FirstName", "AccountId"],
             "relationshipType": "MASTER_DETAIL"},
           "options": {"mergeMode": "OVERWRITE"}}
        ]}
        """#

    @Test func parsesTheRelatedRecordTargetsOfMobileSDKsConfig() throws {
        let config = try SyncsConfig(bytes: Array(Self.relatedSample.utf8))
        #expect(config.entries.count == 5)
        guard case .syncUp(let up) = config.entries[4].target,
            case .parentChildren(let relationship, let childrenCreate, _) = up.kind
        else {
            Issue.record("the last entry is not a parent/children sync up")
            return
        }
        #expect(relationship.parent.externalIdFieldName == "ExternalIdX")
        #expect(up.idFieldName == "IdX")
        #expect(up.externalIdFieldName == "ExternalIdX")
        #expect(childrenCreate == ["LastName", "AccountId"])
        #expect(up.createFieldlist == ["IdX", "Name", "Description"])
        #expect(try SyncsConfig(json: config.json) == config)
    }

    @Test func roundTripsThroughItsJSON() throws {
        let config = try SyncsConfig(bytes: Array(Self.sample.utf8))
        #expect(try SyncsConfig(json: config.json) == config)
    }

    @Test func existingSyncsAreNeverRecreatedOrAltered() throws {
        let config = try SyncsConfig(bytes: Array(Self.sample.utf8))
        let taken: Set = ["soqlSyncDown", "batchSyncUp"]
        let created = config.entriesToCreate { taken.contains($0) }
        #expect(created.count == config.entries.count - 2)
        #expect(!created.contains { taken.contains($0.name) })
    }

    @Test func emptyDefaultFileHasNoEntries() throws {
        #expect(try SyncsConfig(bytes: Array(#"{"syncs": []}"#.utf8)).entries.isEmpty)
    }

    @Test(arguments: [
        (
            #"{"syncs": [{"syncName": "a", "syncType": "syncDown", "soupName": "s", "options": {"mergeMode": "OVERWRITE"}}]}"#,
            #"Syncs config entry 0 ("a") has no "target"."#
        ),
        (
            #"{"syncs": [{"syncName": "a", "syncType": "syncDown", "soupName": "s", "target": {"type": "sosl", "query": "q"}}]}"#,
            #"Syncs config entry 0 ("a") has no "options"."#
        ),
        (
            #"{"syncs": [{"syncName": "a", "syncType": "syncDown", "soupName": "s", "target": {"type": "soql"}, "options": {"mergeMode": "OVERWRITE"}}]}"#,
            #"Syncs config entry 0 ("a"): Sync down target has no "query"."#
        ),
        (
            #"{"syncs": [{"syncName": "a", "syncType": "upward", "soupName": "s", "target": {}, "options": {"mergeMode": "OVERWRITE"}}]}"#,
            #"Syncs config entry 0 ("a"): "syncType" must be syncDown or syncUp, not "upward"."#
        ),
        (#"{"syncs": [{"syncType": "syncDown"}]}"#, #"Syncs config entry 0 has no "syncName"."#),
        (
            #"{"syncs": [{"syncName": "b", "syncType": "syncDown", "soupName": "s", "target": {"type": "sosl", "query": "q"}, "options": {"mergeMode": "KEEP"}}]}"#,
            #"Syncs config entry 0 ("b"): Sync options: "mergeMode" must be OVERWRITE, LEAVE_IF_CHANGED or MERGE_FIELDS, not "KEEP"."#
        ),
        (#"{"syncs": {}}"#, #"Syncs config: "syncs" must be an array."#),
        (#"{"soups": []}"#, #"Syncs config has no "syncs"."#),
    ])
    func errorsNameTheEntryAndField(text: String, message: String) {
        #expect {
            try SyncsConfig(bytes: Array(text.utf8))
        } throws: { error in
            guard let error = error as? SyncError else { return false }
            return error.code == .malformedConfig && error.message == message
        }
    }

    @Test func duplicateNamesInOneFileAreRefused() {
        let entry =
            #"{"syncName": "a", "syncType": "syncDown", "soupName": "s", "target": {"type": "sosl", "query": "q"}, "options": {"mergeMode": "OVERWRITE"}}"#
        #expect {
            try SyncsConfig(bytes: Array(#"{"syncs": [\#(entry), \#(entry)]}"#.utf8))
        } throws: { ($0 as? SyncError)?.message.contains("used twice") == true }
    }

    @Test func notJSONIsAMalformedConfigError() {
        #expect {
            try SyncsConfig(bytes: Array("{syncs".utf8))
        } throws: { ($0 as? SyncError)?.code == .malformedConfig }
    }
}
