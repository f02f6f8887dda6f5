import Determinism
import Foundation
import Logging
import LosslessJSON
import SalesforceAPI
import SalesforceSimulator
import Testing

@Suite struct SimulatorEndpointTests {
    @Test func compositeBatchRunsIndependentSubrequestsAndHaltsOnError() async throws {
        let harness = try SimulatorHarness()
        let batch: JSONValue = [
            "haltOnError": true,
            "batchRequests": [
                ["method": "POST", "url": "v66.0/sobjects/Account", "richInput": ["Name": "Batched"]],
                [
                    "method": "PATCH", "url": .string("v66.0/sobjects/Account/\(SOQLFixture.account(1))"),
                    "richInput": ["Name": "B"],
                ],
                ["method": "GET", "url": "v66.0/query?q=SELECT+Name+FROM+Account+WHERE+Name+=+'B'"],
                ["method": "POST", "url": "v66.0/sobjects/Account", "richInput": ["Nope__c": 1]],
                ["method": "POST", "url": "v66.0/sobjects/Account", "richInput": ["Name": "Never"]],
            ],
        ]
        let (status, json) = await harness.send("POST", "composite/batch", body: batch)
        #expect(status == 200)
        #expect(json["hasErrors"] == true)
        let results = json["results"]?.array ?? []
        #expect(results.map { $0["statusCode"]?.number?.int64Value } == [201, 204, 200, 400, 412])
        #expect(results[2]["result"]?["totalSize"]?.number?.int64Value == 1)
        #expect(results[4]["result"]?[0]?["errorCode"]?.string == "BATCH_PROCESSING_HALTED")
        let (_, never) = await harness.query("SELECT Id FROM Account WHERE Name = 'Never'")
        #expect(never["totalSize"]?.number?.int64Value == 0)
    }

    @Test func outOfBandWritesAdvanceModDatesButLeaveRecentItemsAndLogAlone() async throws {
        let harness = try SimulatorHarness(data: .empty)
        let created = await harness.send("POST", "sobjects/Account", body: ["Name": "Mine"])
        let id = try #require(created.json["id"]?.string)
        harness.simulator.advanceClock(seconds: 60)
        try harness.simulator.write(type: "Account", id: id, fields: ["Name": "Theirs"])
        let other = try harness.simulator.write(type: "account", fields: ["Name": "Other"])
        #expect(harness.simulator.requestLog().count == 1)
        let (_, info) = await harness.send("GET", "sobjects/Account")
        #expect(info["recentItems"]?.array?.map { $0["Id"]?.string } == [id])
        let (_, rows) = await harness.query("SELECT Name, LastModifiedDate FROM Account ORDER BY Name")
        #expect(rows["records"]?.array?.map { $0["Name"]?.string } == ["Other", "Theirs"])
        #expect(rows["records"]?[1]?["LastModifiedDate"]?.string == "2024-01-01T00:01:02.000+0000")
        try harness.simulator.delete(type: "Account", id: other)
        let error = #expect(throws: SimulatorError.self) { try harness.simulator.delete(type: "Account", id: other) }
        #expect(error?.code == .rejectedWrite)
        #expect(error?.message.hasPrefix("ENTITY_IS_DELETED") == true)
        let bad = #expect(throws: SimulatorError.self) {
            try harness.simulator.write(type: "Account", fields: ["Name": .null])
        }
        #expect(bad?.message.hasPrefix("REQUIRED_FIELD_MISSING") == true)
    }

    @Test func recordsControlEndpointWritesAndDeletesOutOfBand() async throws {
        let harness = try SimulatorHarness(data: .empty)
        let (status, json) = await harness.send(
            "POST", "/__simulator/records", body: ["type": "Contact", "fields": ["LastName": "Remote"]])
        #expect(status == 200)
        let id = try #require(json["id"]?.string)
        let delete = await harness.send("DELETE", "/__simulator/records/Contact/\(id)")
        #expect(delete.status == 204)
        let (_, all) = await harness.query("SELECT LastName, IsDeleted FROM Contact", all: true)
        #expect(all["records"]?[0]?["IsDeleted"] == true)
        let invalid = await harness.send(
            "POST", "/__simulator/records", body: ["type": "Contact", "fields": ["Bad__c": 1]])
        #expect(SimulatorHarness.errorCode(invalid.json) == "INVALID_FIELD")
    }

    @Test func plumbingEndpointsAnswer() async throws {
        let harness = try SimulatorHarness()
        let versions = await harness.send("GET", "/services/data/")
        #expect(versions.json[0]?["version"]?.string == "66.0")
        let resources = await harness.send("GET", "/services/data/v61.0/")
        #expect(resources.json["query"]?.string == "/services/data/v61.0/query")
        let limits = await harness.send("GET", "limits")
        #expect(limits.json["DailyApiRequests"]?["Max"]?.number?.int64Value == 100_000)
        let global = await harness.send("GET", "sobjects")
        #expect(global.json["sobjects"]?.array?.map { $0["name"]?.string } == ["User", "Account", "Contact"])
        let describe = await harness.send("GET", "sobjects/account/describe/")
        #expect(describe.json["childRelationships"]?[0]?["relationshipName"]?.string == "Contacts")
        #expect(
            describe.json["fields"]?.array?.first { $0["name"]?.string == "Name" }?["length"]?.number?.int64Value == 255
        )
        let retrieveGET = await harness.send(
            "GET", "composite/sobjects/Account?ids=\(SOQLFixture.account(1)),\(SOQLFixture.account(6))&fields=Name")
        #expect(retrieveGET.json.array?.map { $0["Name"]?.string } == ["Acme", nil])
    }

    @Test func httpAnswersCarrySalesforceHeadersAndNoBodyFor204() async throws {
        let harness = try SimulatorHarness()
        let server = try await SimulatorServer.start(
            harness.simulator, logger: Logger.discarding)
        let transport = URLSessionTransport()
        let authorization = ["Authorization": "Bearer \(SimulatorHarness.token)", "Content-Type": "application/json"]
        let created = try await transport.send(
            TransportRequest(
                method: "POST", url: server.url.appendingPathComponent("services/data/v66.0/sobjects/Account"),
                headers: authorization, body: Data(#"{"Name":"Wire"}"#.utf8)))
        let id = try JSONValue(parsing: created.body)["id"]?.string ?? ""
        let updated = try await transport.send(
            TransportRequest(
                method: "PATCH", url: server.url.appendingPathComponent("services/data/v66.0/sobjects/Account/\(id)"),
                headers: authorization, body: Data(#"{"Name":"Wired"}"#.utf8)))
        await server.stop()
        #expect(created.status == 201)
        #expect(created.headers["location"] == "/services/data/v66.0/sobjects/Account/\(id)")
        #expect(created.headers["content-type"] == "application/json;charset=UTF-8")
        #expect(created.headers["sforce-limit-info"] == "api-usage=1/100000")
        #expect(updated.status == 204)
        #expect(updated.body.isEmpty)
    }

    @Test func compositeTreeCreatesParentsWithChildrenOrNothing() async throws {
        let harness = try SimulatorHarness(data: .empty)
        let tree: JSONValue = [
            "records": [
                [
                    "attributes": ["type": "Account", "referenceId": "ref1"], "Name": "Tree Parent",
                    "Contacts": [
                        "records": [
                            ["attributes": ["type": "Contact", "referenceId": "ref2"], "LastName": "Leaf One"],
                            ["attributes": ["type": "Contact", "referenceId": "ref3"], "LastName": "Leaf Two"],
                        ]
                    ],
                ]
            ]
        ]
        let (status, json) = await harness.send("POST", "composite/tree/Account", body: tree)
        #expect(status == 201)
        #expect(json["hasErrors"] == false)
        #expect(json["results"]?.array?.map { $0["referenceId"]?.string } == ["ref1", "ref2", "ref3"])
        let (_, rows) = await harness.query("SELECT Name, (SELECT LastName FROM Contacts) FROM Account")
        #expect(rows["records"]?[0]?["Contacts"]?["totalSize"]?.number?.int64Value == 2)
        let broken: JSONValue = [
            "records": [
                ["attributes": ["type": "Account", "referenceId": "ok"], "Name": "Fine"],
                ["attributes": ["type": "Account", "referenceId": "bad"], "Name": .null],
            ]
        ]
        let failed = await harness.send("POST", "composite/tree/Account", body: broken)
        #expect(failed.status == 400)
        #expect(failed.json["results"]?.array?.map { $0["referenceId"]?.string } == ["bad"])
        #expect(failed.json["results"]?[0]?["errors"]?[0]?["statusCode"]?.string == "REQUIRED_FIELD_MISSING")
        let (_, count) = await harness.query("SELECT COUNT() FROM Account")
        #expect(count["totalSize"]?.number?.int64Value == 1)
    }

    @Test func recordsCanBeReadByExternalID() async throws {
        let harness = try SimulatorHarness(data: try SimulatorData.demo())
        let (status, json) = await harness.send("GET", "sobjects/Account/ExternalId__c/acc-7?fields=Name,ExternalId__c")
        #expect(status == 200)
        #expect(json["ExternalId__c"]?.string == "ACC-7")
        #expect(json["Id"]?.string == SalesforceID(keyPrefix: "001", counter: 7).rawValue)
        let missing = await harness.send("GET", "sobjects/Account/ExternalId__c/ACC-0")
        #expect(missing.status == 404)
    }
}
