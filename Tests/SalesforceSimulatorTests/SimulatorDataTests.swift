import Determinism
import Foundation
import Logging
import LosslessJSON
import SalesforceAPI
import SalesforceSimulator
import Testing

@Suite struct SimulatorDataTests {
    @Test func demoOrgLoadsAccountsWithTheirContacts() async throws {
        let harness = try SimulatorHarness(data: try SimulatorData.demo())
        let (_, accounts) = await harness.query("SELECT COUNT() FROM Account")
        #expect(accounts["totalSize"]?.number?.int64Value == Int64(DemoOrg.accountCountDefault))
        let (_, contacts) = await harness.query("SELECT COUNT() FROM Contact WHERE Account.Name != null")
        #expect(
            contacts["totalSize"]?.number?.int64Value
                == Int64(DemoOrg.accountCountDefault * DemoOrg.contactsPerAccountDefault))
    }

    @Test func committedDemoFileIsWhatTheGeneratorWrites() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/SalesforceSimulator/Resources/demo-org.json")
        let committed = try JSONValue(parsing: Array(try Data(contentsOf: file)))
        #expect(committed == DemoOrg.generate())
    }

    @Test func dataFileDeclaresCustomObjectsAndInfersUndeclaredOnes() async throws {
        let file: JSONValue = [
            "objects": [
                [
                    "name": "Widget__c", "keyPrefix": "a07",
                    "fields": [
                        ["name": "Name", "type": "string", "length": 10, "required": true],
                        [
                            "name": "Account__c", "type": "reference", "referenceTo": "Account",
                            "relationshipName": "Account__r", "childRelationshipName": "Widgets__r",
                        ],
                    ],
                ]
            ],
            "records": [
                "Account": [["Id": .string(SOQLFixture.account(1)), "Name": "Parent"]],
                "Widget__c": [["Name": "Gear", "Account__c": .string(SOQLFixture.account(1))]],
                "Gadget__c": [["Label__c": "free form", "Weight__c": 2.5]],
            ],
        ]
        let harness = try SimulatorHarness(data: try SimulatorData(json: file))
        let (_, widgets) = await harness.query("SELECT Name, Account__r.Name FROM Widget__c")
        #expect(widgets["records"]?[0]?["Account__r"]?["Name"]?.string == "Parent")
        #expect(widgets["records"]?[0]?["attributes"]?["url"]?.string?.contains("/Widget__c/a07") == true)
        let (_, parents) = await harness.query("SELECT Name, (SELECT Name FROM Widgets__r) FROM Account")
        #expect(parents["records"]?[0]?["Widgets__r"]?["totalSize"]?.number?.int64Value == 1)
        let (_, gadgets) = await harness.query("SELECT Label__c FROM Gadget__c WHERE Weight__c > 2")
        #expect(gadgets["records"]?[0]?["Label__c"]?.string == "free form")
        let tooLong = await harness.send("POST", "sobjects/Widget__c", body: ["Name": "12345678901"])
        #expect(SimulatorHarness.errorCode(tooLong.json) == "STRING_TOO_LONG")
    }

    @Test(arguments: [
        "not json", "[]", "{\"records\": {\"Account\": 5}}", "{\"records\": {\"Account\": [{\"Nope__c\": 1}]}}",
        "{\"records\": {\"Account\": [{\"Id\": \"001BAD\"}]}}", "{\"objects\": [{\"name\": \"X\"}]}",
        "{\"records\": {\"Account\": [{\"Name\": \"x\", \"NumberOfEmployees\": \"many\"}]}}",
    ])
    func invalidDataFilesAreTypedErrors(_ text: String) throws {
        let logger = Logger.discarding
        let error = #expect(throws: SimulatorError.self) {
            let data = try SimulatorData(bytes: Array(text.utf8))
            _ = try SalesforceSimulator(configuration: .init(data: data), logger: logger)
        }
        #expect(error?.code == .invalidData)
    }
}
