import Determinism
import LosslessJSON
import MobileSync
import Testing

/// The JSON and the queries of the parent/children, briefcase, layout and metadata targets.
@Suite struct RelatedTargetDescriptorTests {
    /// Mobile SDK's sample `parentChildrenSyncDown` entry (usersyncs.json), with the fields renamed
    /// as in its test config.
    static let sampleJSON = """
        {"type": "parent_children",
         "parent": {"idFieldName": "IdX", "sobjectType": "Account", "modificationDateFieldName": "LastModifiedDateX",
                    "soupName": "accounts"},
         "parentFieldlist": ["IdX", "Name", "Description"],
         "children": {"parentIdFieldName": "AccountId", "idFieldName": "IdY", "sobjectType": "Contact",
                      "modificationDateFieldName": "LastModifiedDateY", "soupName": "contacts",
                      "sobjectTypePlural": "Contacts"},
         "childrenFieldlist": ["LastName", "AccountId"],
         "relationshipType": "MASTER_DETAIL",
         "parentSoqlFilter": "NameX like 'James%'"}
        """

    @Test func parentChildrenJSONParsesBothSidesAndRoundTrips() throws {
        let target = try SyncDownTargetDescriptor(json: try JSONValue(parsing: Self.sampleJSON))
        guard case .parentChildren(let relationship, let parentFields, let childFields, let filter) = target.kind else {
            Issue.record("not a parent/children target")
            return
        }
        #expect(relationship.parent.idFieldName == "IdX")
        #expect(relationship.children.sobjectTypePlural == "Contacts")
        #expect(relationship.children.parentIdFieldName == "AccountId")
        #expect(relationship.relationshipType == .masterDetail)
        #expect(parentFields == ["IdX", "Name", "Description"])
        #expect(childFields == ["LastName", "AccountId"])
        #expect(filter == "NameX like 'James%'")
        // The target's own id and date fields are the parent's.
        #expect(target.idFieldName == "IdX")
        #expect(target.modificationDateFieldName == "LastModifiedDateX")
        #expect(!target.isSortedByModificationDate)
        #expect(target.json["type"] == "parent_children")
        #expect(try SyncDownTargetDescriptor(json: target.json) == target)
    }

    @Test func firstRunQueryNestsTheChildrenAndOrdersByTheParentDate() throws {
        let target = try Self.accountsWithContacts(filter: "Name like 'A%' or Name like 'B%'")
        #expect(
            try target.parentChildrenQueries(maxTimeStamp: -1) == [
                "select Name, Id, LastModifiedDate, (select LastName, Id, LastModifiedDate from Contacts) "
                    + "from Account where (Name like 'A%' or Name like 'B%') order by LastModifiedDate"
            ])
    }

    @Test func reSyncAsksForChangedParentsThenForParentsWhoseChildrenChanged() throws {
        let target = try Self.accountsWithContacts(filter: "")
        // Both queries ask from the start of the watermark's second, inclusive (decision 0321).
        let time = WallTime(millisecondsSinceEpoch: 1_700_000_005_000).salesforceFormat
        #expect(
            try target.parentChildrenQueries(maxTimeStamp: 1_700_000_005_250) == [
                "select Name, Id, LastModifiedDate, (select LastName, Id, LastModifiedDate from Contacts "
                    + "where LastModifiedDate >= \(time)) from Account where LastModifiedDate >= \(time) "
                    + "order by LastModifiedDate",
                "select Name, Id, LastModifiedDate, (select LastName, Id, LastModifiedDate from Contacts "
                    + "where LastModifiedDate >= \(time)) from Account where Id in (select AccountId from Contact "
                    + "where LastModifiedDate >= \(time)) order by LastModifiedDate",
            ])
    }

    @Test func reSyncOverlapWidensEveryDatePredicateAndRoundTrips() throws {
        var json = try #require(try Self.accountsWithContacts(filter: "").json.object)
        json["reSyncOverlapSeconds"] = 2
        let target = try SyncDownTargetDescriptor(json: .object(json))
        #expect(target.reSyncOverlapSeconds == 2)
        #expect(try SyncDownTargetDescriptor(json: target.json) == target)
        let time = WallTime(millisecondsSinceEpoch: 1_700_000_003_000).salesforceFormat
        let queries = try target.parentChildrenQueries(maxTimeStamp: 1_700_000_005_250)
        #expect(queries.count == 2)
        for query in queries {
            #expect(query.ranges(of: "LastModifiedDate >= \(time)").count == 2)
            #expect(!query.contains("LastModifiedDate > "))
        }
    }

    @Test func briefcaseReadsAnOverlapAndMetadataRefusesOne() throws {
        let briefcase: JSONValue = [
            "type": "briefcase", "reSyncOverlapSeconds": 5,
            "infos": [["sobjectType": "Account", "fieldlist": ["Name"], "soupName": "accounts"]],
        ]
        let target = try SyncDownTargetDescriptor(json: briefcase)
        #expect(target.reSyncOverlapSeconds == 5)
        #expect(try SyncDownTargetDescriptor(json: target.json) == target)
        #expect(throws: SyncError.self) {
            try SyncDownTargetDescriptor(.metadata(sobjectType: "Account"), reSyncOverlapSeconds: 1)
        }
    }

    @Test func reSyncKeepsTheFilterBesideTheWatermarkInParentheses() throws {
        let target = try Self.accountsWithContacts(filter: "Industry = 'Retail'")
        let queries = try target.parentChildrenQueries(maxTimeStamp: 1_700_000_000_000)
        #expect(queries.count == 2)
        #expect(queries[0].contains(" and (Industry = 'Retail') order by"))
        #expect(queries[1].contains("0000) and (Industry = 'Retail') order by"))
    }

    @Test func ghostQueriesListParentIdsAndNestedChildIdsWithTheFilter() throws {
        let target = try Self.accountsWithContacts(filter: "Industry = 'Retail'")
        let queries = try #require(try target.parentChildrenRemoteIdsQueries())
        #expect(queries.parents == "select Id from Account where (Industry = 'Retail')")
        #expect(
            queries.children == "select Id, (select Id from Contacts) from Account where (Industry = 'Retail')")
    }

    @Test func otherTargetsHaveNoParentChildrenQueries() throws {
        let target = try SyncDownTargetDescriptor(.soql(query: "select Id from Account"))
        #expect(try target.parentChildrenQueries(maxTimeStamp: 5).isEmpty)
        #expect(try target.parentChildrenRemoteIdsQueries() == nil)
    }

    @Test(arguments: [
        #"{"type":"parent_children","parent":{"sobjectType":"Account","soupName":"a"},"children":{"sobjectType":"Contact","sobjectTypePlural":"Contacts","soupName":"c","parentIdFieldName":"AccountId"},"parentFieldlist":[],"childrenFieldlist":[],"relationshipType":"OWNS"}"#,
        #"{"type":"parent_children","parent":{"sobjectType":"Account where","soupName":"a"},"children":{"sobjectType":"Contact","sobjectTypePlural":"Contacts","soupName":"c","parentIdFieldName":"AccountId"},"parentFieldlist":[],"childrenFieldlist":[],"relationshipType":"LOOKUP"}"#,
        #"{"type":"parent_children","parent":{"sobjectType":"Account","soupName":"a"},"children":{"sobjectType":"Contact","soupName":"c","parentIdFieldName":"AccountId"},"parentFieldlist":[],"childrenFieldlist":[],"relationshipType":"LOOKUP"}"#,
        #"{"type":"parent_children","parent":{"sobjectType":"Account","soupName":"a"},"children":{"sobjectType":"Contact","sobjectTypePlural":"Contacts","soupName":"c","parentIdFieldName":"AccountId"},"parentFieldlist":["Name,(select"],"childrenFieldlist":[],"relationshipType":"LOOKUP"}"#,
    ])
    func malformedParentChildrenTargetsAreRefused(text: String) throws {
        #expect(throws: SyncError.self) { try SyncDownTargetDescriptor(json: try JSONValue(parsing: text)) }
    }

    @Test func briefcaseJSONReadsItsInfosAndClampsTheRetrieveSize() throws {
        let json = try JSONValue(
            parsing: """
                {"type": "briefcase", "countIdsPerRetrieve": 5000, "infos": [
                  {"sobjectType": "Account", "fieldlist": ["Name", "Description"], "soupName": "accounts"},
                  {"sobjectType": "Contact", "fieldlist": ["FirstName"], "idFieldName": "IdX",
                   "modificationDateFieldName": "LastModifiedDateX", "soupName": "contacts"}]}
                """)
        let target = try SyncDownTargetDescriptor(json: json)
        guard case .briefcase(let infos, let count) = target.kind else {
            Issue.record("not a briefcase target")
            return
        }
        #expect(count == 2000)
        #expect(infos.map(\.soupName) == ["accounts", "contacts"])
        #expect(infos[1].idFieldName == "IdX")
        #expect(infos[1].retrievedFields == ["FirstName", "IdX", "LastModifiedDateX"])
        #expect(try SyncDownTargetDescriptor(json: target.json) == target)
    }

    @Test func layoutAndMetadataTargetsRoundTrip() throws {
        let layout = try SyncDownTargetDescriptor(
            json: ["type": "layout", "sobjectType": "Account", "formFactor": "Medium", "layoutType": "Compact"])
        #expect(
            layout.kind
                == .layout(
                    sobjectType: "Account", formFactor: "Medium", layoutType: "Compact", mode: nil, recordTypeId: nil))
        #expect(try SyncDownTargetDescriptor(json: layout.json) == layout)
        let metadata = try SyncDownTargetDescriptor(json: ["type": "metadata", "sobjectType": "Contact"])
        #expect(metadata.kind == .metadata(sobjectType: "Contact"))
        #expect(try SyncDownTargetDescriptor(json: metadata.json) == metadata)
    }

    static func accountsWithContacts(
        filter: String, type: ParentChildrenRelationship.RelationshipType = .masterDetail
    ) throws -> SyncDownTargetDescriptor {
        try SyncDownTargetDescriptor(
            .parentChildren(
                ParentChildrenRelationship(
                    parent: .init(sobjectType: "Account", soupName: "accounts"),
                    children: .init(
                        sobjectType: "Contact", sobjectTypePlural: "Contacts", soupName: "contacts",
                        parentIdFieldName: "AccountId"),
                    relationshipType: type),
                parentFieldlist: ["Name"], childrenFieldlist: ["LastName"], parentSoqlFilter: filter))
    }
}
