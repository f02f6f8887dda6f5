import Foundation
import LosslessJSON
import Soups
import SyncTesting

/// A SmartStore database as an app leaves it: three soups with every index type among them, clean
/// and dirty records, a deleted record, and `syncs_soup` holding a RUNNING SOQL sync down and a
/// sync up.
struct SmartStoreSample {
    static let accountSpecs = [
        IndexSpec(path: "Id", type: .string), IndexSpec(path: "Name", type: .fullText),
        IndexSpec(path: "NumberOfEmployees", type: .integer), IndexSpec(path: "AnnualRevenue", type: .floating),
        IndexSpec(path: "BillingAddress.City", type: .json1), IndexSpec(path: "__local__", type: .string),
        IndexSpec(path: "__sync_id__", type: .integer),
    ]
    static let contactSpecs = [IndexSpec(path: "Id", type: .string), IndexSpec(path: "__local__", type: .string)]
    static let noteSpecs = [
        IndexSpec(path: "Title", type: .fullText), IndexSpec(path: "Meta.Tag", type: .json1),
        IndexSpec(path: "Pinned", type: .integer),
    ]
    static let syncSpecs = ["type", "name", "status"].map { IndexSpec(path: $0, type: .json1) }
    static let soqlQuery = "SELECT Id, Name, LastModifiedDate FROM Account"
    static let watermark: Int64 = 1_672_531_260_000
    static let clean = "001000000000001AAA"
    static let updated = "001000000000002AAA"
    static let deleted = "001000000000003AAA"

    let url: URL
    /// The `_soupEntryId` of the record deleted before the file was taken: the highest SmartStore handed out.
    let deletedEntryId: Int64

    /// Syncs of every other target type (parent/children and briefcase among them) and status, in
    /// the shapes Mobile SDK saves them.
    static let otherSyncs: [JSONValue] = [
        sync(
            "syncDown", "NEW", ["type": "sosl", "query": "FIND {Acme} RETURNING Account(Id, Name, LastModifiedDate)"]),
        sync("syncDown", "FAILED", ["type": "mru", "sobjectType": "Account", "fieldlist": ["Id", "Name"]]),
        sync(
            "syncDown", "STOPPED",
            ["type": "refresh", "sobjectType": "Account", "fieldlist": ["Id", "Name"], "soupName": "accounts"]),
        sync("syncDown", "DONE", ["type": "metadata", "sobjectType": "Account"]),
        sync("syncDown", "DONE", ["type": "layout", "sobjectType": "Account", "layoutType": "Compact"]),
        sync("syncDown", "RUNNING", ["type": "custom", "androidImpl": "com.acme.sync.AcmeSyncDownTarget"]),
        sync(
            "syncDown", "DONE",
            [
                "type": "parent_children",
                "parent": ["idFieldName": "Id", "sobjectType": "Account", "soupName": "accounts"],
                "parentFieldlist": ["Id", "Name"],
                "children": [
                    "parentIdFieldName": "AccountId", "sobjectType": "Contact", "sobjectTypePlural": "Contacts",
                    "soupName": "contacts",
                ],
                "childrenFieldlist": ["LastName", "AccountId"], "relationshipType": "MASTER_DETAIL",
            ]),
        sync(
            "syncDown", "STOPPED",
            [
                "type": "briefcase",
                "infos": [
                    ["sobjectType": "Account", "fieldlist": ["Name"], "soupName": "accounts"],
                    ["sobjectType": "Contact", "fieldlist": ["LastName"], "soupName": "contacts"],
                ],
            ]),
        sync(
            "syncUp", "NEW",
            [
                "iOSImpl": "SFParentChildrenSyncUpTarget",
                "parent": ["idFieldName": "Id", "sobjectType": "Account", "soupName": "accounts"],
                "createFieldlist": ["Name"], "updateFieldlist": ["Name"],
                "children": [
                    "parentIdFieldName": "AccountId", "sobjectType": "Contact", "sobjectTypePlural": "Contacts",
                    "soupName": "contacts",
                ],
                "childrenCreateFieldlist": ["LastName", "AccountId"], "childrenUpdateFieldlist": ["LastName"],
                "relationshipType": "MASTER_DETAIL",
            ]),
        sync("syncUp", "FAILED", ["androidImpl": "com.salesforce.androidsdk.mobilesync.target.BatchSyncUpTarget"]),
        sync("syncUp", "NEW", ["iOSImpl": "SFSyncUpTarget"]),
        sync("syncUp", "RUNNING", ["iOSImpl": "AcmeSyncUpTarget"]),
    ]

    private static func sync(_ type: String, _ status: String, _ target: JSONValue) -> JSONValue {
        [
            "type": .string(type), "soupName": "accounts", "target": target, "options": ["mergeMode": "OVERWRITE"],
            "status": .string(status), "progress": 0, "totalSize": -1, "maxTimeStamp": 1_672_531_200_000,
            "startTime": 0, "endTime": 0, "error": .string(status == "FAILED" ? "the server said no" : ""),
        ]
    }

    /// Writes the sample to `url`; `accounts` extra clean records are added for size, and with
    /// `everyTarget` ``otherSyncs`` after the two syncs.
    init(url: URL, extraAccounts: Int = 0, everyTarget: Bool = false) throws {
        self.url = url
        let fixture = try SmartStoreFixture(url: url)
        defer { fixture.close() }
        try fixture.registerSoup("accounts", indexSpecs: Self.accountSpecs)
        try fixture.registerSoup("contacts", indexSpecs: Self.contactSpecs)
        try fixture.registerSoup("syncs_soup", indexSpecs: Self.syncSpecs)
        let flags: (Bool, Bool, Bool, Bool) -> [String: JSONValue] = { local, created, updated, deleted in
            [
                "__local__": .bool(local), "__locally_created__": .bool(created),
                "__locally_updated__": .bool(updated), "__locally_deleted__": .bool(deleted),
            ]
        }
        func account(_ fields: [String: JSONValue], _ flagFields: [String: JSONValue]) -> JSONValue {
            var members = fields.merging(flagFields) { $1 }
            members["attributes"] = ["type": "Account"]
            return .object(members)
        }
        try fixture.insert(
            "accounts",
            account(
                [
                    "Id": .string(Self.clean), "Name": "Café Crème", "NumberOfEmployees": 12, "AnnualRevenue": 1250.50,
                    "BillingAddress": ["City": "Lyon"], "__sync_id__": 1, "__last_error__": nil,
                ], flags(false, false, false, false)),
            created: 1_000, lastModified: 2_000)
        try fixture.insert(
            "accounts",
            account(
                [
                    "Id": .string(Self.updated), "Name": "Renamed locally", "NumberOfEmployees": 40, "__sync_id__": 1,
                    "__last_error__": #"{"message":"UNABLE_TO_LOCK_ROW"}"#,
                ], flags(true, false, true, false)),
            created: 1_100, lastModified: 5_000)
        try fixture.insert(
            "accounts",
            account(
                ["Id": .string(Self.deleted), "Name": "Gone locally", "__sync_id__": 1], flags(true, false, false, true)
            ),
            created: 1_200, lastModified: 5_100)
        try fixture.insert(
            "accounts", account(["Id": "local_17", "Name": "Created offline"], flags(true, true, false, false)),
            created: 6_000, lastModified: 6_000)
        for n in 0..<extraAccounts {
            try fixture.insert(
                "accounts",
                account(
                    ["Id": .string("Extra \(n)"), "Name": .string("Extra account \(n)")],
                    flags(false, false, false, false)),
                created: 7_000, lastModified: 7_000 + Int64(n))
        }
        let doomed = try fixture.insert(
            "accounts", account(["Id": "001000000000009AAA", "Name": "Deleted"], flags(false, false, false, false)),
            created: 8_000, lastModified: 8_000)
        try fixture.delete("accounts", entryId: doomed)
        deletedEntryId = doomed
        try fixture.insert(
            "contacts", ["Id": "003000000000001AAA", "LastName": "Durand", "__local__": false], created: 9_000,
            lastModified: 9_000)
        try fixture.registerSoup("notes", indexSpecs: Self.noteSpecs)
        try fixture.insert(
            "notes", ["Title": "Réunion à Lyon", "Meta": ["Tag": "travel"], "Pinned": 1], created: 9_100,
            lastModified: 9_100)
        try fixture.insert(
            "notes", ["Title": "Budget review", "Meta": ["Tag": "finance"], "Pinned": 0], created: 9_200,
            lastModified: 9_300)
        try Self.insertSyncs(fixture)
        for sync in everyTarget ? Self.otherSyncs : [] {
            try fixture.insert("syncs_soup", sync, created: 13_000, lastModified: 13_000)
        }
    }

    private static func insertSyncs(_ fixture: SmartStoreFixture) throws {
        let down: JSONValue = [
            "type": "syncDown", "name": "accountsDown", "soupName": "accounts",
            "target": ["type": "soql", "query": .string(soqlQuery), "idFieldName": "Id"],
            "options": ["mergeMode": "LEAVE_IF_CHANGED"], "status": "RUNNING", "progress": 50, "totalSize": 4,
            "maxTimeStamp": .number(JSONNumber(watermark)), "startTime": 10_000, "endTime": 0, "error": "",
        ]
        let up: JSONValue = [
            "type": "syncUp", "name": "accountsUp", "soupName": "accounts",
            "target": ["idFieldName": "Id", "modificationDateFieldName": "LastModifiedDate"],
            "options": ["mergeMode": "OVERWRITE", "fieldlist": ["Name"]], "status": "DONE", "progress": 100,
            "totalSize": 0, "maxTimeStamp": -1, "startTime": 11_000, "endTime": 12_000, "error": "",
        ]
        try fixture.insert("syncs_soup", down, created: 10_000, lastModified: 10_000)
        try fixture.insert("syncs_soup", up, created: 11_000, lastModified: 12_000)
    }
}
