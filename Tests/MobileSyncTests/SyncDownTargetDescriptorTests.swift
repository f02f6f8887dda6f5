import Determinism
import LosslessJSON
import MobileSync
import Testing

@Suite struct SyncDownTargetDescriptorTests {
    @Test func soqlTargetAppliesDefaultsAndNormalizesTheQuery() throws {
        let target = try SyncDownTargetDescriptor(json: ["type": "soql", "query": "SELECT Name FROM Account"])
        #expect(target.idFieldName == "Id")
        #expect(target.modificationDateFieldName == "LastModifiedDate")
        #expect(
            target.kind
                == .soql(
                    query: "select Id,LastModifiedDate,Name from Account order by LastModifiedDate", maxBatchSize: 2000)
        )
        #expect(target.isSortedByModificationDate)
        #expect(
            target.json.serializedString
                == #"{"idFieldName":"Id","maxBatchSize":2000,"modificationDateFieldName":"LastModifiedDate","query":"select Id,LastModifiedDate,Name from Account order by LastModifiedDate","type":"soql"}"#
        )
    }

    @Test(arguments: [
        #"{"type":"soql","query":"select Id,LastModifiedDate from Account order by Name","maxBatchSize":500,"androidImpl":"com.salesforce.androidsdk.mobilesync.target.SoqlSyncDownTarget"}"#,
        #"{"type":"sosl","query":"FIND {Joe} RETURNING Contact(Id, LastModifiedDate)","idFieldName":"IdX"}"#,
        #"{"type":"mru","sobjectType":"Account","fieldlist":["Id","Name"],"modificationDateFieldName":"SystemModstamp"}"#,
        #"{"type":"refresh","sobjectType":"Account","fieldlist":["Name"],"soupName":"accounts","countIdsPerSoql":100,"reSyncOverlapSeconds":30}"#,
        #"{"type":"custom","androidImpl":"com.example.PagedTarget","iOSImpl":"PagedTarget","pageSize":7}"#,
        #"{"type":"custom","iOSImpl":"PagedTarget","reSyncOverlapSeconds":120}"#,
        #"{"type":"soql","query":"select Id,LastModifiedDate from Account order by Name","reSyncOverlapSeconds":600,"maxBatchSize":2000}"#,
        #"{"type":"mru","sobjectType":"Account","fieldlist":["Id"],"reSyncOverlapSeconds":"kept as it is"}"#,
    ])
    func roundTripsTargetJSONWithoutLoss(text: String) throws {
        let target = try SyncDownTargetDescriptor(json: try JSONValue(parsing: text))
        let again = try SyncDownTargetDescriptor(json: target.json)
        #expect(again == target)
        var expected = try JSONValue(parsing: text).object ?? [:]
        expected["idFieldName"] = expected["idFieldName"] ?? "Id"
        expected["modificationDateFieldName"] = expected["modificationDateFieldName"] ?? "LastModifiedDate"
        #expect(target.json == .object(expected))
    }

    @Test(arguments: [
        (#"{"type":"custom","iOSImpl":"SwiftTarget","androidImpl":"com.x.AndroidTarget"}"#, "SwiftTarget"),
        (#"{"androidImpl":"com.example.sync.AccountTarget"}"#, "AccountTarget"),
        (#"{"type":"custom","androidImpl":"PlainName"}"#, "PlainName"),
    ])
    func customTargetsMapClassNamesToARegistryKey(text: String, key: String) throws {
        let target = try SyncDownTargetDescriptor(json: try JSONValue(parsing: text))
        #expect(target.kind == .custom(registryKey: key))
    }

    /// A saved target carries the overlap when it has one; without, the JSON is Mobile SDK's.
    @Test func theOverlapIsWrittenOnlyWhenSetAndOnlyTargetsThatReSyncTakeOne() throws {
        let soql = try SyncDownTargetDescriptor(.soql(query: "SELECT Name FROM Account"))
        #expect(soql.json["reSyncOverlapSeconds"] == nil)
        var widened = soql
        widened.reSyncOverlapSeconds = 45
        #expect(widened.json["reSyncOverlapSeconds"] == 45)
        #expect(try SyncDownTargetDescriptor(json: widened.json) == widened)
        #expect {
            try SyncDownTargetDescriptor(.mru(sobjectType: "Account", fieldlist: ["Id"]), reSyncOverlapSeconds: 5)
        } throws: { ($0 as? SyncError)?.code == .malformedTarget }
    }

    @Test func customTargetCreatedInSwiftWritesItsKeyAsIOSImpl() throws {
        let target = try SyncDownTargetDescriptor(.custom(registryKey: "Paged"))
        #expect(target.json["iOSImpl"] == "Paged")
        #expect(target.json["type"] == "custom")
        #expect(!target.isSortedByModificationDate)
        #expect(try SyncDownTargetDescriptor(json: target.json) == target)
    }

    @Test(arguments: [
        (#"[1]"#, "must be a JSON object"),
        (#"{"type":"soql"}"#, "no \"query\""),
        (#"{"type":"soql","query":42}"#, "\"query\" must be a string"),
        (#"{"type":"soql","query":"select Id from A","maxBatchSize":"big"}"#, "\"maxBatchSize\" must be an integer"),
        (#"{"type":"mru","sobjectType":"Account","fieldlist":[1]}"#, "\"fieldlist\" must be an array of strings"),
        (#"{"type":"refresh","sobjectType":"Account","fieldlist":["Name"]}"#, "no \"soupName\""),
        (#"{"type":"briefcase","infos":[]}"#, "needs at least one info"),
        (#"{"type":"briefcase","infos":{}}"#, "\"infos\" must be an array"),
        (#"{"type":"briefcase","infos":[{"sobjectType":"Account","soupName":"a"}]}"#, "infos[0] has no \"fieldlist\""),
        (#"{"type":"parent_children","parentSoqlFilter":""}"#, "no \"parent\""),
        (#"{"type":"metadata"}"#, "no \"sobjectType\""),
        (#"{"type":"layout","sobjectType":"Account x"}"#, "\"Account x\" is not an API name"),
        (#"{"type":"graph"}"#, "\"graph\" is not supported"),
        (#"{"query":"select Id from A"}"#, "no \"type\""),
        (#"{"type":"custom"}"#, "no \"type\" and no \"iOSImpl\""),
        (#"{"type":"soql","query":"select Id from A","reSyncOverlapSeconds":-1}"#, "from 0 to 86400, not -1"),
        (
            #"{"type":"refresh","sobjectType":"A","fieldlist":[],"soupName":"a","reSyncOverlapSeconds":86401}"#,
            "not 86401"
        ),
        (#"{"type":"soql","query":"select Id from A","reSyncOverlapSeconds":1.5}"#, "\"reSyncOverlapSeconds\" must be"),
    ])
    func malformedTargetsThrowErrorsNamingTheField(text: String, fragment: String) throws {
        let json = try JSONValue(parsing: text)
        #expect {
            try SyncDownTargetDescriptor(json: json)
        } throws: { error in
            guard let error = error as? SyncError else { return false }
            return error.code == .malformedTarget && error.message.contains(fragment)
        }
    }

    @Test func badSOQLInATargetIsAMalformedQueryError() {
        #expect {
            try SyncDownTargetDescriptor(json: ["type": "soql", "query": "select Id from Account where Name = 'x"])
        } throws: { ($0 as? SyncError)?.code == .malformedQuery }
    }

    @Test(arguments: [(2000, nil), (500, "batchSize=500"), (10, "batchSize=200"), (5000, nil), (199, "batchSize=200")])
    func queryOptionsHeaderIsSentOnlyForANonDefaultClampedSize(size: Int, expected: String?) {
        #expect(SyncDownTargetDescriptor.queryOptionsHeaderValue(maxBatchSize: size) == expected)
    }

    @Test(arguments: [(nil, 500), (100, 100), (900, 500), (0, 500), (-3, 500)] as [(Int64?, Int)])
    func refreshIdsPerQueryDefaultsAndIsCappedAt500(count: Int64?, expected: Int) throws {
        var json: [String: JSONValue] = [
            "type": "refresh", "sobjectType": "Account", "fieldlist": ["Name"], "soupName": "s",
        ]
        if let count { json["countIdsPerSoql"] = .number(JSONNumber(count)) }
        let target = try SyncDownTargetDescriptor(json: .object(json))
        guard case .refresh(_, _, _, let countIdsPerSoql) = target.kind else {
            Issue.record("not a refresh target")
            return
        }
        #expect(countIdsPerSoql == expected)
    }

    @Test func refreshSlicesIdsAndBuildsOneQueryPerSlice() throws {
        let target = try SyncDownTargetDescriptor(
            .refresh(sobjectType: "Account", fieldlist: ["Name", "Id"], soupName: "accounts", countIdsPerSoql: 2))
        #expect(target.refreshIdSlices(["a", "b", "c", "d", "e"]) == [["a", "b"], ["c", "d"], ["e"]])
        #expect(target.refreshIdSlices([]).isEmpty)
        #expect(
            target.refreshQuery(ids: ["a", "b"], window: ReSyncWindow(maxTimeStamp: -1))
                == "select Name, Id, LastModifiedDate from Account where Id IN ('a', 'b')")
        #expect(
            target.refreshQuery(ids: ["a"], window: ReSyncWindow(maxTimeStamp: 1_423_170_723_956))
                == "select Name, Id, LastModifiedDate from Account where Id IN ('a') and LastModifiedDate >= 2015-02-05T21:12:03.000+0000"
        )
        #expect(target.refreshQuery(ids: [], window: ReSyncWindow(maxTimeStamp: 1)) == nil)
    }

    @Test func refreshFiltersOnlyOnResyncAndOnlyWhenEveryLocalRecordHasADate() throws {
        let target = try SyncDownTargetDescriptor(
            .refresh(sobjectType: "Account", fieldlist: ["Name"], soupName: "accounts"), reSyncOverlapSeconds: 5)
        let dated: [JSONValue] = [
            ["Id": "a", "LastModifiedDate": "2024-05-01T12:30:00.000+0000"],
            ["Id": "b", "LastModifiedDate": "2024-05-02T12:30:00.000+0000"],
        ]
        let since = WallTime(iso8601: "2024-05-02T12:29:55.000+0000")?.millisecondsSinceEpoch
        let window = target.refreshWindow(localSlice: dated, syncMaxTimeStamp: 1)
        let newest = try #require(since) + 5_000
        #expect(
            window == ReSyncWindow(modifiedSince: try #require(since), overlapSeconds: 5, previousWatermark: newest))
        #expect(!target.refreshWindow(localSlice: dated, syncMaxTimeStamp: -1).isIncremental)
        #expect(!target.refreshWindow(localSlice: dated + [["Id": "c"]], syncMaxTimeStamp: 1).isIncremental)
    }

    @Test func mruQueryUsesTheFieldListVerbatimAndEscapesIds() throws {
        let target = try SyncDownTargetDescriptor(.mru(sobjectType: "Contact", fieldlist: ["Name"]))
        #expect(
            target.mruQuery(recentIds: ["003A", "o'b"]) == #"select Name from Contact where Id IN ('003A', 'o\'b')"#)
        #expect(target.existingIdsQuery(localIds: ["003A"]) == "select Id from Contact where Id IN ('003A')")
        #expect(target.mruQuery(recentIds: []) == nil)
    }

    @Test func queriesForTheWrongTargetKindAreNil() throws {
        let target = try SyncDownTargetDescriptor(.sosl(query: "FIND {a}"))
        #expect(target.mruQuery(recentIds: ["a"]) == nil)
        #expect(target.refreshQuery(ids: ["a"], window: ReSyncWindow(maxTimeStamp: -1)) == nil)
        #expect(target.existingIdsQuery(localIds: ["a"]) == nil)
        #expect(!target.isSortedByModificationDate)
    }
}
