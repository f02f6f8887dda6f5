import LosslessJSON
import SalesforceAPI
import SalesforceSimulator
import Testing

@Suite struct BadInputTests {
    @Test func malformedIDsAnswerMalformedID() async throws {
        let harness = try SimulatorHarness()
        for method in ["GET", "PATCH", "DELETE"] {
            let (status, json) = await harness.send(
                method, "sobjects/Account/a00B000000FSjVUIB1", body: method == "PATCH" ? [:] : nil)
            #expect(status == 400, "\(method)")
            #expect(SimulatorHarness.errorCode(json) == "MALFORMED_ID", "\(method)")
            #expect(json[0]?["message"]?.string == "Record ID: id value of incorrect type: a00B000000FSjVUIB1")
        }
        let (status, json) = await harness.send("GET", "sobjects/Account/bogus_contact_id")
        #expect(status == 404)
        #expect(
            json[0]?["message"]?.string
                == "Provided external ID field does not exist or is not accessible: bogus_contact_id")
    }

    @Test func tooLongAndMissingValuesAnswerFieldErrors() async throws {
        let harness = try SimulatorHarness()
        let long = String(repeating: "n", count: 256)
        let update = await harness.send(
            "PATCH", "sobjects/Account/\(SOQLFixture.account(1))", body: ["Name": .string(long)])
        #expect(update.status == 400)
        #expect(SimulatorHarness.errorCode(update.json) == "STRING_TOO_LONG")
        #expect(update.json[0]?["message"]?.string == "Account Name: data value too large: \(long) (max length=255)")
        let exact = await harness.send("POST", "sobjects/Account", body: ["Name": .string(String(long.dropFirst()))])
        #expect(exact.status == 201)
        let contact = await harness.send(
            "POST", "sobjects/Contact", body: ["LastName": .string(String(repeating: "l", count: 81))])
        #expect(contact.json[0]?["message"]?.string?.hasPrefix("Last Name: data value too large") == true)
        let missing = await harness.send("POST", "sobjects/Contact", body: ["FirstName": "No last name"])
        #expect(SimulatorHarness.errorCode(missing.json) == "REQUIRED_FIELD_MISSING")
        #expect(missing.json[0]?["fields"] == ["LastName"])
        let cleared = await harness.send("PATCH", "sobjects/Account/\(SOQLFixture.account(1))", body: ["Name": .null])
        #expect(SimulatorHarness.errorCode(cleared.json) == "REQUIRED_FIELD_MISSING")
    }

    @Test func writeBodiesAreCheckedFieldByField() async throws {
        let harness = try SimulatorHarness()
        let unknown = await harness.send("POST", "sobjects/Account", body: ["Name": "x", "Color__c": "red"])
        #expect(unknown.json[0]?["message"]?.string == "No such column 'Color__c' on sobject of type Account")
        let withID = await harness.send(
            "POST", "sobjects/Account", body: ["Name": "x", "Id": .string(SOQLFixture.account(1))])
        #expect(withID.json[0]?["message"]?.string == "The Id field should not be specified in the sobject data.")
        let system = await harness.send(
            "POST", "sobjects/Account", body: ["Name": "x", "CreatedDate": "2020-01-01T00:00:00Z"])
        #expect(SimulatorHarness.errorCode(system.json) == "INVALID_FIELD_FOR_INSERT_UPDATE")
        let wrongType = await harness.send(
            "POST", "sobjects/Account", body: ["Name": "x", "NumberOfEmployees": "many"])
        #expect(SimulatorHarness.errorCode(wrongType.json) == "JSON_PARSER_ERROR")
        let deletedParent = await harness.send(
            "POST", "sobjects/Contact", body: ["LastName": "x", "AccountId": .string(SOQLFixture.account(6))])
        #expect(deletedParent.status == 400)
        #expect(SimulatorHarness.errorCode(deletedParent.json) == "ENTITY_IS_DELETED")
        #expect(deletedParent.json[0]?["fields"] == ["AccountId"])
        let notJSON = await harness.simulator.handle(
            SimulatorRequest(
                method: "POST", target: "/services/data/v66.0/sobjects/Account",
                headers: ["Authorization": "Bearer \(SimulatorHarness.token)"], body: Array("{oops".utf8)))
        #expect(notJSON.status == 400)
        let duplicate = await harness.send("POST", "sobjects/Account", body: ["Name": "x", "ExternalId__c": "E1"])
        #expect(duplicate.status == 201)
        let clash = await harness.send("POST", "sobjects/Account", body: ["Name": "y", "ExternalId__c": "e1"])
        #expect(SimulatorHarness.errorCode(clash.json) == "DUPLICATE_VALUE")
    }

    @Test func overLimitBatchesAnswerTheDocumentedErrors() async throws {
        let harness = try SimulatorHarness()
        let record: JSONValue = ["attributes": ["type": "Account"], "Name": "x"]
        let create = await harness.send(
            "POST", "composite/sobjects", body: ["records": .array(Array(repeating: record, count: 201))])
        #expect(create.status == 400)
        #expect(SimulatorHarness.errorCode(create.json) == "EXCEEDED_ID_LIMIT")
        let ids = Array(repeating: SOQLFixture.account(1), count: 201).joined(separator: ",")
        let delete = await harness.send("DELETE", "composite/sobjects?ids=\(ids)")
        #expect(SimulatorHarness.errorCode(delete.json) == "EXCEEDED_ID_LIMIT")
        let retrieve = await harness.send(
            "POST", "composite/sobjects/Account",
            body: ["ids": .array(Array(repeating: .string(SOQLFixture.account(1)), count: 2001)), "fields": ["Name"]])
        #expect(retrieve.status == 400)
        #expect(SimulatorHarness.errorCode(retrieve.json) == "EXCEEDED_ID_LIMIT")
        let subrequest: JSONValue = ["method": "GET", "url": "/services/data/v66.0/limits", "referenceId": "r"]
        let composite = await harness.send(
            "POST", "composite",
            body: ["compositeRequest": .array((0..<26).map { _ in subrequest })])
        #expect(composite.status == 400)
        #expect(SimulatorHarness.errorCode(composite.json) == "LIMIT_EXCEEDED")
        let exactly200 = await harness.send(
            "POST", "composite/sobjects", body: ["records": .array(Array(repeating: record, count: 200))])
        #expect(exactly200.status == 200)
        #expect(exactly200.json.array?.count == 200)
    }

    @Test func transportLevelMistakesGetSalesforceAnswers() async throws {
        let harness = try SimulatorHarness()
        let longURI = await harness.send("GET", "query?q=\(String(repeating: "a", count: 17_000))")
        #expect(longURI.status == 414)
        let noQuery = await harness.send("GET", "query")
        #expect(SimulatorHarness.errorCode(noQuery.json) == "MALFORMED_QUERY")
        let unknownType = await harness.send("GET", "sobjects/Widget__c")
        #expect(unknownType.status == 404)
        let wrongMethod = await harness.send("PATCH", "sobjects/Account", body: [:])
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.json[0]?["message"]?.string == "HTTP Method 'PATCH' not allowed. Allowed are HEAD,GET,POST")
        let anonymous = await harness.simulator.handle(
            SimulatorRequest(method: "GET", target: "/services/data/v66.0/query?q=SELECT+Id+FROM+Account"))
        #expect(anonymous.status == 401)
        let legacyScheme = await harness.simulator.handle(
            SimulatorRequest(
                method: "GET", target: "/services/data/v66.0/?",
                headers: ["Authorization": "OAuth \(SimulatorHarness.token)"]))
        #expect(legacyScheme.status == 200)
    }

    @Test func deeplyNestedQueriesAnswerMalformedQueryInsteadOfExhaustingTheStack() async throws {
        let harness = try SimulatorHarness()
        let parentheses =
            "SELECT Id FROM Account WHERE " + String(repeating: "(", count: 1500) + "Name = 'x'"
            + String(repeating: ")", count: 1500)
        let negations = "SELECT Id FROM Account WHERE " + String(repeating: "NOT ", count: 1500) + "Name = 'x'"
        let semiJoins =
            "SELECT Id FROM Account WHERE " + String(repeating: "Id IN (SELECT Id FROM Account WHERE ", count: 200)
            + "Name = 'x'" + String(repeating: ")", count: 200)
        for soql in [parentheses, negations, semiJoins] {
            let (status, json) = await harness.query(soql)
            #expect(status == 400)
            #expect(SimulatorHarness.errorCode(json) == "MALFORMED_QUERY")
        }
        // Inside a composite body the URI limit does not apply, so only the depth bound protects.
        let deep = "SELECT+Id+FROM+Account+WHERE+" + String(repeating: "(", count: 20_000) + "Name='x'"
        let composite = await harness.send(
            "POST", "composite",
            body: [
                "compositeRequest": [
                    ["method": "GET", "url": .string("/services/data/v66.0/query?q=\(deep)"), "referenceId": "deep"]
                ]
            ])
        #expect(composite.json["compositeResponse"]?[0]?["body"]?[0]?["errorCode"]?.string == "MALFORMED_QUERY")
        let (status, _) = await harness.query(
            "SELECT Id FROM Account WHERE " + String(repeating: "(", count: 20) + "Name = 'Acme'"
                + String(repeating: ")", count: 20))
        #expect(status == 200)
    }
}
