import LosslessJSON
import SalesforceAPI
import SalesforceSimulator
import Testing

/// Pins each decision on the wire reference's §8 open points (docs/decisions/0101).
@Suite struct OpenPointDecisionTests {
    static let neverExisted = SalesforceID(keyPrefix: "001", counter: 999).rawValue

    @Test func patchOrDeleteOfANeverExistingIDAnswers404NotFound() async throws {
        let harness = try SimulatorHarness()
        let patch = await harness.send("PATCH", "sobjects/Account/\(Self.neverExisted)", body: ["Name": "x"])
        #expect(patch.status == 404)
        #expect(SimulatorHarness.errorCode(patch.json) == "NOT_FOUND")
        let delete = await harness.send("DELETE", "sobjects/Account/\(Self.neverExisted)")
        #expect(delete.status == 404)
        #expect(SimulatorHarness.errorCode(delete.json) == "NOT_FOUND")
        let deleted = await harness.send("DELETE", "sobjects/Account/\(SOQLFixture.account(6))")
        #expect(deleted.status == 404)
        #expect(SimulatorHarness.errorCode(deleted.json) == "ENTITY_IS_DELETED")
        #expect(deleted.json[0]?["fields"] == [])
    }

    @Test func collectionsSayInvalidCrossReferenceForMissingAndEntityIsDeletedForRecycled() async throws {
        let harness = try SimulatorHarness()
        let (status, json) = await harness.send(
            "PATCH", "composite/sobjects",
            body: [
                "allOrNone": false,
                "records": [
                    ["attributes": ["type": "Account"], "Id": .string(Self.neverExisted), "Name": "x"],
                    ["attributes": ["type": "Account"], "Id": .string(SOQLFixture.account(6)), "Name": "x"],
                ],
            ])
        #expect(status == 200)
        let codes = json.array?.map { $0["errors"]?[0]?["statusCode"]?.string }
        #expect(codes == ["INVALID_CROSS_REFERENCE_KEY", "ENTITY_IS_DELETED"])
        #expect(json[0]?["errors"]?[0]?["fields"] == [])
        #expect(json[0]?["success"] == false)
    }

    @Test func compositeSubrequestDependingOnAFailedOneIsHaltedWith400() async throws {
        let harness = try SimulatorHarness()
        let (status, json) = await harness.send(
            "POST", "composite",
            body: [
                "allOrNone": false,
                "compositeRequest": [
                    [
                        "method": "POST", "url": "/services/data/v66.0/sobjects/Account", "referenceId": "bad",
                        "body": [:],
                    ],
                    [
                        "method": "POST", "url": "/services/data/v66.0/sobjects/Contact", "referenceId": "child",
                        "body": ["LastName": "Orphan", "AccountId": "@{bad.id}"],
                    ],
                    [
                        "method": "POST", "url": "/services/data/v66.0/sobjects/Account", "referenceId": "ok",
                        "body": ["Name": "Independent"],
                    ],
                ],
            ])
        #expect(status == 200)
        let responses = json["compositeResponse"]?.array ?? []
        #expect(responses.map { $0["httpStatusCode"]?.number?.int64Value } == [400, 400, 201])
        #expect(responses[1]["body"]?[0]?["errorCode"]?.string == "PROCESSING_HALTED")
        #expect(responses.allSatisfy { $0["httpHeaders"]?.object != nil })
    }

    @Test func unknownQueryLocatorAnswers400InvalidQueryLocator() async throws {
        let harness = try SimulatorHarness()
        let (status, json) = await harness.send("GET", "query/01g000000000042AAA-2000")
        #expect(status == 400)
        #expect(SimulatorHarness.errorCode(json) == "INVALID_QUERY_LOCATOR")
    }

    @Test func parentWithoutChildrenGetsNullNotAnEmptyResult() async throws {
        let harness = try SimulatorHarness()
        let (_, json) = await harness.query(
            "SELECT Name, (SELECT Id FROM Contacts) FROM Account WHERE Name = 'charlie'")
        #expect(json["records"]?[0]?["Contacts"] == .null)
        #expect(json["records"]?[0]?.object?.keys.contains("Contacts") == true)
    }

    @Test func recentItemsAreAnAdminListThatAPIWritesUpdate() async throws {
        let harness = try SimulatorHarness()
        let chosen: JSONValue = [.string(SOQLFixture.account(3)), .string(SOQLFixture.account(1))]
        let put = await harness.simulator.handle(
            SimulatorRequest(method: "PUT", target: "/__simulator/recent/Account", body: chosen.serialized()))
        #expect(put.status == 204)
        var (_, info) = await harness.send("GET", "sobjects/Account")
        #expect(info["recentItems"]?.array?.map { $0["Name"]?.string } == ["charlie", "Acme"])
        _ = await harness.send("PATCH", "sobjects/Account/\(SOQLFixture.account(2))", body: ["Rating": "Hot"])
        (_, info) = await harness.send("GET", "sobjects/Account/")
        #expect(info["recentItems"]?.array?.map { $0["Name"]?.string } == ["Bravo", "charlie", "Acme"])
    }

    @Test func idInEmptyStringListMatchesNothingWithoutError() async throws {
        let harness = try SimulatorHarness()
        let (status, json) = await harness.query("select Id, Name from Account where Id IN ('')")
        #expect(status == 200)
        #expect(json["totalSize"]?.number?.int64Value == 0)
    }

    @Test func angleBracketsAreAcceptedAsNotEqual() async throws {
        let harness = try SimulatorHarness()
        let (_, json) = await harness.query("SELECT Id FROM Account WHERE Industry <> 'Retail'")
        #expect(json["totalSize"]?.number?.int64Value == 3)
    }

    @Test func soslWordsMustAllMatchAndNeedTwoCharacters() async throws {
        let harness = try SimulatorHarness()
        let both = await harness.send(
            "GET", "search?q=\(SimulatorHarness.encode("FIND {ann smith} RETURNING Contact(Name)"))")
        #expect(both.json["searchRecords"]?.array?.map { $0["Name"]?.string } == ["Ann Smith"])
        let either = await harness.send(
            "GET", "search?q=\(SimulatorHarness.encode("FIND {ann OR bob} RETURNING Contact(Name)"))")
        #expect(either.json["searchRecords"]?.array?.count == 2)
        let wildcard = await harness.send(
            "GET", "search?q=\(SimulatorHarness.encode("FIND {sm*} IN NAME FIELDS RETURNING Contact"))")
        #expect(wildcard.json["searchRecords"]?.array?.count == 2)
        #expect(wildcard.json["searchRecords"]?[0]?.object?.keys.sorted() == ["Id", "attributes"])
        let short = await harness.send("GET", "search?q=\(SimulatorHarness.encode("FIND {a}"))")
        #expect(short.status == 400)
        #expect(SimulatorHarness.errorCode(short.json) == "MALFORMED_SEARCH")
        let braces = await harness.send("GET", "search?q=\(SimulatorHarness.encode("FIND acme"))")
        #expect(SimulatorHarness.errorCode(braces.json) == "MALFORMED_SEARCH")
    }

    @Test func cursorsServeTheSnapshotTakenWhenTheQueryRan() async throws {
        let data = SimulatorData(records: (1...300).map { (type: "Account", fields: ["Name": .string("A\($0)")]) })
        let harness = try SimulatorHarness(data: data)
        let (_, first) = await harness.query(
            "SELECT Id, Name FROM Account", headers: ["Sforce-Query-Options": "batchSize=200"])
        #expect(first["records"]?.array?.count == 200)
        let next = try #require(first["nextRecordsUrl"]?.string)
        let last = SalesforceID(keyPrefix: "001", counter: 300).rawValue
        _ = await harness.send("PATCH", "sobjects/Account/\(last)", body: ["Name": "Changed"])
        _ = await harness.send("DELETE", "sobjects/Account/\(SalesforceID(keyPrefix: "001", counter: 299).rawValue)")
        let (_, second) = await harness.send("GET", next)
        #expect(second["records"]?.array?.count == 100)
        #expect(second["records"]?.array?.last?["Name"]?.string == "A300")
        #expect(second["totalSize"]?.number?.int64Value == 300)
        #expect(second["done"] == true)
        #expect(second.object?.keys.contains("nextRecordsUrl") == false)
    }

    @Test func cursorsExpireAfterTwoDaysOfSimulatorTime() async throws {
        let data = SimulatorData(records: (1...250).map { (type: "Account", fields: ["Name": .string("A\($0)")]) })
        let harness = try SimulatorHarness(data: data)
        let (_, first) = await harness.query(
            "SELECT Id FROM Account", headers: ["Sforce-Query-Options": "batchSize=200"])
        let next = try #require(first["nextRecordsUrl"]?.string)
        harness.simulator.advanceClock(seconds: 2 * 24 * 3600)
        let (status, json) = await harness.send("GET", next)
        #expect(status == 400)
        #expect(SimulatorHarness.errorCode(json) == "INVALID_QUERY_LOCATOR")
    }

    @Test func upsertMatchingSeveralRecordsAnswers300WithTheirURLs() async throws {
        let data = SimulatorData(
            records: [
                (type: "Account", fields: ["Name": "One", "ExternalId__c": "SAME"]),
                (type: "Account", fields: ["Name": "Two", "ExternalId__c": "same"]),
            ])
        let harness = try SimulatorHarness(data: data)
        let (status, json) = await harness.send("PATCH", "sobjects/Account/ExternalId__c/SAME", body: ["Name": "Three"])
        #expect(status == 300)
        #expect(json.array?.count == 2)
        #expect(json[0]?.string?.hasPrefix("/services/data/v66.0/sobjects/Account/001") == true)
        let unknown = await harness.send("PATCH", "sobjects/Account/Namez/x", body: [:])
        #expect(unknown.status == 404)
        #expect(
            unknown.json[0]?["message"]?.string
                == "Provided external ID field does not exist or is not accessible: Namez")
    }
}
