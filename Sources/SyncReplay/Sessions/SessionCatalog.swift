import LosslessJSON
import MobileSync
import SalesforceSimulator

/// The recorded sessions under `Journals/`, defined as scenarios so they can be recorded again.
///
/// Each case keeps few records (paging needs 201: the REST API's smallest page is 200), so the
/// whole corpus replays in seconds. To add a case, add it here, record it with
/// `JOURNALS_RECORD=missing swift test --filter RecordedSession`, and commit its directory.
public enum SessionCatalog {
    static let soup = "accounts"
    static let indexes = ["Id:string", "Name:string"]
    static let query = normalizedQuery("SELECT Id, Name FROM Account")

    /// `query` as the engine rewrites it for a sync down, which is how `operations.json` holds it.
    ///
    /// - Returns: the normalized query, or `query` itself when it cannot be parsed (the run then
    ///   fails and says why).
    public static func normalizedQuery(_ query: String) -> String {
        guard let target = try? SyncDownTargetDescriptor(.soql(query: query)),
            case .soql(let normalized, _) = target.kind
        else { return query }
        return normalized
    }

    /// Every case, in the order of `Journals/README.md`.
    public static var all: [SessionCase] {
        syncDown + syncUp + faults + lifecycle + related + mergeFields
    }

    /// The case at `path` (`area/name`), if there is one.
    public static func named(_ path: String) -> SessionCase? {
        all.first { $0.path == path }
    }

    // MARK: - Sync down

    static var syncDown: [SessionCase] {
        [
            SessionCase(
                area: "sync-down", name: "initial", summary: "A first sync down of three Accounts into an empty soup.",
                accounts: SessionCase.accounts(3),
                script: SessionScript(operations: [register, down("accounts")])),
            SessionCase(
                area: "sync-down", name: "paging",
                summary: "201 Accounts fetched in pages of 200 through nextRecordsUrl.",
                accounts: SessionCase.accounts(201),
                script: SessionScript(operations: [register, down("accounts", batchSize: 200)])),
            SessionCase(
                area: "sync-down", name: "resync",
                summary:
                    "After a first sync, another client edits one Account and creates one; reSync fetches only those.",
                accounts: SessionCase.accounts(3),
                script: SessionScript(operations: [
                    register, down("accounts"),
                    .writeOnServer(type: "Account", id: SessionCase.accountId(1), fields: ["Name": "Renamed remotely"]),
                    .writeOnServer(type: "Account", id: nil, fields: ["Name": "Created remotely"]),
                    .reSync(name: "accounts"),
                ])),
            SessionCase(
                area: "sync-down", name: "resync-same-second",
                summary:
                    "Another client saves one Account in the watermark's second and one dated 2 s before it (a long "
                    + "transaction); a reSync with a 3 s overlap fetches both, and leaves the Accounts it fetches "
                    + "again unchanged, one of them edited locally, as they are.",
                accounts: SessionCase.accounts(4),
                script: SessionScript(operations: [
                    register, down("accounts", reSyncOverlapSeconds: 3),
                    .updateLocally(soup: soup, field: "Id", value: SessionCase.accountId(2), changes: ["Name": "Mine"]),
                    .writeOnServer(
                        type: "Account", id: SessionCase.accountId(0), fields: ["Name": "In the watermark's second"],
                        modifiedAt: SessionCase.modifiedDate(3)),
                    .writeOnServer(
                        type: "Account", id: SessionCase.accountId(1), fields: ["Name": "Long transaction"],
                        modifiedAt: SessionCase.modifiedDate(1)),
                    .reSync(name: "accounts"),
                ])),
            conflict(name: "leave-if-changed", mergeMode: "LEAVE_IF_CHANGED", keeps: "keeps the local edit"),
            conflict(name: "overwrite", mergeMode: "OVERWRITE", keeps: "writes the server's value over the local edit"),
            SessionCase(
                area: "sync-down", name: "ghosts-two-syncs",
                summary:
                    "Two syncs share a soup; ghost cleaning of each removes only its own records the server deleted.",
                accounts: SessionCase.accounts(4, extra: [0: ["BillingCity": "Paris"], 1: ["BillingCity": "Paris"]]),
                script: SessionScript(operations: [
                    register, down("all"),
                    down("paris", query: normalizedQuery("SELECT Id, Name FROM Account WHERE BillingCity = 'Paris'")),
                    .deleteOnServer(type: "Account", id: SessionCase.accountId(0)),
                    .deleteOnServer(type: "Account", id: SessionCase.accountId(3)),
                    .cleanGhosts(name: "paris"), .cleanGhosts(name: "all"),
                ])),
        ]
    }

    static func conflict(name: String, mergeMode: String, keeps: String) -> SessionCase {
        SessionCase(
            area: "sync-down", name: name,
            summary: "An Account edited locally and on the server: reSync under \(mergeMode) \(keeps).",
            accounts: SessionCase.accounts(3),
            script: SessionScript(operations: [
                register, down("accounts", mergeMode: mergeMode),
                .updateLocally(soup: soup, field: "Id", value: SessionCase.accountId(0), changes: ["Name": "Mine"]),
                .writeOnServer(type: "Account", id: SessionCase.accountId(0), fields: ["Name": "Theirs"]),
                .writeOnServer(type: "Account", id: SessionCase.accountId(1), fields: ["Name": "Theirs too"]),
                .reSync(name: "accounts"),
            ]))
    }

    // MARK: - Sync up

    static var syncUp: [SessionCase] {
        SessionSyncUpTarget.allCases.map { target in
            SessionCase(
                area: "sync-up", name: target.caseName,
                summary: "A local create, update and delete sent through the \(target.caseName) target.",
                accounts: SessionCase.accounts(3),
                script: SessionScript(operations: [
                    register, down("accounts"),
                    .createLocally(soup: soup, type: "Account", fields: ["Name": "Created offline"]),
                    .updateLocally(
                        soup: soup, field: "Id", value: SessionCase.accountId(0), changes: ["Name": "Edited offline"]),
                    .deleteLocally(soup: soup, field: "Id", value: SessionCase.accountId(1)),
                    up("up", target: target),
                ]))
        } + [
            SessionCase(
                area: "sync-up", name: "record-errors",
                summary:
                    "One of two new Accounts has a Name over 255 characters: it keeps its change and __last_error__.",
                accounts: [],
                script: SessionScript(operations: [
                    register,
                    .createLocally(soup: soup, type: "Account", fields: ["Name": "Valid"]),
                    .createLocally(soup: soup, type: "Account", fields: ["Name": String(repeating: "x", count: 300)]),
                    up("up", target: .collection),
                ]))
        ]
    }

    // MARK: - Faults

    static var faults: [SessionCase] {
        [
            SessionCase(
                area: "faults", name: "token-refresh",
                summary: "The access token expires between syncs: the client refreshes it once and the reSync goes on.",
                accounts: SessionCase.accounts(2),
                script: SessionScript(operations: [
                    register, down("accounts"), .expireTokens,
                    .writeOnServer(type: "Account", id: SessionCase.accountId(1), fields: ["Name": "Renamed"]),
                    .reSync(name: "accounts"),
                ])),
            SessionCase(
                area: "faults", name: "server-unavailable-retries",
                summary: "The first two queries answer 503; the client backs off and retries until the page arrives.",
                accounts: SessionCase.accounts(2),
                script: SessionScript(operations: [
                    register,
                    .setFaults(
                        FaultPlan(rules: [FaultRule(method: "GET", path: "/services/data", status: 503, count: 2)])),
                    down("accounts"), .setFaults(nil),
                ])),
        ]
    }

    // MARK: - Lifecycle

    static var lifecycle: [SessionCase] {
        [
            SessionCase(
                area: "lifecycle", name: "stop-restart",
                summary: "The manager is stopped after the first of two pages; restart resumes from the watermark.",
                accounts: SessionCase.accounts(201),
                script: SessionScript(operations: [
                    register, down("accounts", batchSize: 200, stopAfterFirstPage: true), .restart,
                ])),
            SessionCase(
                area: "lifecycle", name: "crash-recovered-upload",
                summary: "An upsert's answers are lost after the server commits; after a crash the next sync up "
                    + "reconciles by external id, and the server holds the record once.",
                accounts: SessionCase.accounts(1),
                script: SessionScript(operations: [
                    register, down("accounts"),
                    .createLocally(
                        soup: soup, type: "Account", fields: ["Name": "Created offline", "ExternalId__c": "EXT-1"]),
                    .setFaults(
                        FaultPlan(rules: [
                            FaultRule(path: "/services/data/v66.0/composite", drop: .afterCommit, count: 10)
                        ])),
                    up(
                        "up", target: .collection, fieldlist: ["Name", "ExternalId__c"],
                        externalIdField: "ExternalId__c"),
                    .reopenStore, .setFaults(nil), .reSync(name: "up"), .reSync(name: "accounts"),
                ])),
        ]
    }

    // MARK: - MERGE_FIELDS

    static let phoneQuery = normalizedQuery("SELECT Id, Name, Phone FROM Account")

    /// An Account edited locally, and on the server in `serverField`, then synced down and up
    /// with MERGE_FIELDS; `resolution` runs between the two sync ups.
    static func merge(
        name: String, summary: String, serverField: String, resolution: [SessionOperation]
    ) -> SessionCase {
        SessionCase(
            area: "merge-fields", name: name, summary: summary,
            accounts: SessionCase.accounts(2, extra: [0: ["Phone": "100"], 1: ["Phone": "101"]]),
            script: SessionScript(
                operations: [
                    register, down("accounts", query: phoneQuery, mergeMode: "MERGE_FIELDS"),
                    .updateLocally(soup: soup, field: "Id", value: SessionCase.accountId(0), changes: ["Name": "Mine"]),
                    .writeOnServer(type: "Account", id: SessionCase.accountId(0), fields: [serverField: "Theirs"]),
                    .reSync(name: "accounts"),
                    up("up", target: .collection, mergeMode: "MERGE_FIELDS", fieldlist: ["Name", "Phone"]),
                ] + resolution + [.reSync(name: "up")]))
    }

    static var mergeFields: [SessionCase] {
        [
            merge(
                name: "merge",
                summary:
                    "An Account's Name edited locally and its Phone on the server: the MERGE_FIELDS reSync keeps "
                    + "both, and the sync up sends only the Name.",
                serverField: "Phone", resolution: []),
            merge(
                name: "conflict-resolved",
                summary:
                    "An Account's Name edited on both sides: the reSync lists a conflict, the sync up holds the "
                    + "record, the app takes the server's Name, and the next sync up sends nothing.",
                serverField: "Name",
                resolution: [.resolveConflict(soup: soup, field: "Id", value: SessionCase.accountId(0), take: "server")]
            ),
        ]
    }

    // MARK: - Related records

    static let contactsSoup = "contacts"
    static let registerContacts = SessionOperation.registerSoup(
        soup: contactsSoup, indexes: ["Id:string", "AccountId:string", "LastName:string"])

    static var related: [SessionCase] {
        [
            SessionCase(
                area: "related", name: "parent-children-down",
                summary: "Accounts with their Contacts: reSync fetches a Contact changed under an unchanged Account "
                    + "and keeps a locally edited Contact while its Account is refreshed; ghost cleaning removes a "
                    + "deleted Contact.",
                accounts: SessionCase.accounts(2), contacts: SessionCase.contacts(perAccount: 2, accountCount: 2),
                script: SessionScript(operations: [
                    register, registerContacts, tree("tree", mergeMode: "LEAVE_IF_CHANGED"),
                    .writeOnServer(
                        type: "Contact", id: SessionCase.contactId(1), fields: ["LastName": "Renamed remotely"]),
                    .updateLocally(
                        soup: contactsSoup, field: "Id", value: SessionCase.contactId(2), changes: ["LastName": "Mine"]),
                    .writeOnServer(type: "Account", id: SessionCase.accountId(1), fields: ["Name": "Theirs"]),
                    .reSync(name: "tree"), .deleteOnServer(type: "Contact", id: SessionCase.contactId(0)),
                    .cleanGhosts(name: "tree"),
                ])),
            SessionCase(
                area: "related", name: "parent-children-up",
                summary: "An Account and its Contact created offline go in one composite request, the Contact naming "
                    + "the new Account by reference; an edited Contact of a synced Account follows in its own.",
                accounts: SessionCase.accounts(1), contacts: SessionCase.contacts(perAccount: 1, accountCount: 1),
                script: SessionScript(operations: [
                    register, registerContacts, tree("tree", mergeMode: "OVERWRITE"),
                    .createLocally(soup: soup, type: "Account", fields: ["Name": "Created offline"]),
                    .createChildLocally(
                        soup: contactsSoup, type: "Contact", fields: ["LastName": "Child offline"],
                        linkField: "AccountId",
                        parentSoup: soup, parentField: "Name", parentValue: "Created offline"),
                    .updateLocally(
                        soup: contactsSoup, field: "Id", value: SessionCase.contactId(0),
                        changes: ["LastName": "Edited offline"]),
                    .syncUpTarget(
                        name: "treeUp", soup: soup, target: canonicalTarget(treeUpTarget), mergeMode: "OVERWRITE",
                        fieldlist: nil),
                ])),
            SessionCase(
                area: "related", name: "briefcase-down",
                summary:
                    "A briefcase primes Accounts and some Contacts two ids per page; reSync sends the watermark as "
                    + "changedAfterTimestamp; ghost cleaning removes an Account deleted on the server.",
                accounts: SessionCase.accounts(3, extra: datedSystemModstamps(3)),
                contacts: SessionCase.contacts(perAccount: 2, accountCount: 3),
                briefcases: [
                    Briefcase(
                        name: "Field sales",
                        rules: [
                            Briefcase.Rule(objectType: "Account"),
                            Briefcase.Rule(objectType: "Contact", filter: "LastName like 'Contact 0%'"),
                        ])
                ], primingPageSize: 2,
                script: SessionScript(operations: [
                    register, registerContacts,
                    .syncDownTarget(
                        name: "briefcase", soup: soup, target: canonicalTarget(briefcaseTarget),
                        mergeMode: "OVERWRITE"),
                    .writeOnServer(type: "Account", id: SessionCase.accountId(1), fields: ["Name": "Renamed remotely"]),
                    .reSync(name: "briefcase"), .deleteOnServer(type: "Account", id: SessionCase.accountId(2)),
                    .cleanGhosts(name: "briefcase"),
                ])),
        ]
    }

    static let relationship = ParentChildrenRelationship(
        parent: .init(sobjectType: "Account", soupName: soup),
        children: .init(
            sobjectType: "Contact", sobjectTypePlural: "Contacts", soupName: contactsSoup,
            parentIdFieldName: "AccountId"),
        relationshipType: .masterDetail)

    static func tree(_ name: String, mergeMode: String) -> SessionOperation {
        let target = try? SyncDownTargetDescriptor(
            .parentChildren(
                relationship, parentFieldlist: ["Name"], childrenFieldlist: ["LastName", "AccountId"],
                parentSoqlFilter: ""))
        return .syncDownTarget(
            name: name, soup: soup, target: target?.json.serializedString ?? "", mergeMode: mergeMode)
    }

    static var treeUpTarget: JSONValue {
        SyncUpTargetDescriptor(
            parentChildren: relationship, createFieldlist: ["Name"], updateFieldlist: ["Name"],
            childrenCreateFieldlist: ["LastName"], childrenUpdateFieldlist: ["LastName"]
        ).json
    }

    static var briefcaseTarget: JSONValue {
        let target = try? SyncDownTargetDescriptor(
            .briefcase(infos: [
                BriefcaseObjectInfo(sobjectType: "Account", fieldlist: ["Name"], soupName: soup),
                BriefcaseObjectInfo(
                    sobjectType: "Contact", fieldlist: ["LastName", "AccountId"], soupName: contactsSoup),
            ]))
        return target?.json ?? .null
    }

    /// Target JSON as a session stores it: the engine's serialization (keys in byte order).
    static func canonicalTarget(_ json: JSONValue) -> String {
        json.serializedString
    }

    /// `SystemModstamp` equal to each initial Account's `LastModifiedDate`, as on a real org,
    /// for the cases that read it (briefcase priming).
    static func datedSystemModstamps(_ count: Int) -> [Int: [String: String]] {
        var extra: [Int: [String: String]] = [:]
        for (number, account) in SessionCase.accounts(count).enumerated() {
            extra[number] = ["SystemModstamp": account["LastModifiedDate"] ?? ""]
        }
        return extra
    }

    // MARK: - Building blocks

    static let register = SessionOperation.registerSoup(soup: soup, indexes: indexes)

    static func down(
        _ name: String, query: String = query, batchSize: Int? = nil, mergeMode: String = "LEAVE_IF_CHANGED",
        stopAfterFirstPage: Bool = false, reSyncOverlapSeconds: Int? = nil
    ) -> SessionOperation {
        .syncDown(
            name: name, soup: soup, query: query, batchSize: batchSize, mergeMode: mergeMode,
            stopAfterFirstPage: stopAfterFirstPage, reSyncOverlapSeconds: reSyncOverlapSeconds)
    }

    static func up(
        _ name: String, target: SessionSyncUpTarget, mergeMode: String = "OVERWRITE", fieldlist: [String] = ["Name"],
        externalIdField: String? = nil
    ) -> SessionOperation {
        .syncUp(
            name: name, soup: soup, target: target, mergeMode: mergeMode, fieldlist: fieldlist,
            externalIdField: externalIdField)
    }
}

extension SessionSyncUpTarget {
    /// The case name of the sync-up case using this target.
    var caseName: String {
        switch self {
        case .singleRecord: "single-record"
        case .batch: "batch"
        case .collection: "collection"
        }
    }
}
