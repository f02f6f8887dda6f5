import LosslessJSON
import SalesforceAPI
import SalesforceSimulator
import Testing

/// `connect/briefcase/priming-records` from the data file's briefcases, and `ui-api/layout`.
@Suite struct BriefcaseAndLayoutTests {
    /// Five Accounts modified a minute apart, two Contacts, and a briefcase priming the Retail
    /// Accounts and every Contact, three ids per page.
    static func data() throws -> SimulatorData {
        let accounts: [JSONValue] = (0..<5).map { number in
            let stamp = JSONValue.string("2024-02-01T10:0\(number):00.000+0000")
            return [
                "Name": .string("A\(number)"), "Industry": number == 3 ? "Banking" : "Retail", "SystemModstamp": stamp,
                "LastModifiedDate": stamp,
            ]
        }
        return try SimulatorData(
            json: [
                "records": ["Account": .array(accounts), "Contact": [["LastName": "C0"], ["LastName": "C1"]]],
                "briefcases": [
                    [
                        "name": "Field sales",
                        "rules": [
                            ["objectType": "Account", "filter": "Industry = 'Retail'"], ["objectType": "Contact"],
                        ],
                    ]
                ],
                "primingPageSize": 3,
            ])
    }

    static func ids(_ page: JSONValue) -> [String] {
        var ids: [String] = []
        for type in (page["primingRecords"]?.object ?? [:]).keys.sorted() {
            for list in page["primingRecords"]?[type]?.object?.values.map({ $0 }) ?? [] {
                ids += list.array?.compactMap { $0["id"]?.string } ?? []
            }
        }
        return ids
    }

    @Test func primingPagesByRelayTokenWithTheWholeCountOnEachPage() async throws {
        let harness = try SimulatorHarness(data: try Self.data())
        let (status, first) = await harness.send("GET", "connect/briefcase/priming-records")
        #expect(status == 200)
        #expect(Self.ids(first).count == 3)
        #expect(first["stats"]?["recordCountTotal"] == 6)
        #expect(first["stats"]?["recordCountServed"] == 3)
        #expect(first["ruleErrors"] == [])
        let token = try #require(first["relayToken"]?.string)
        let (_, second) = await harness.send("GET", "connect/briefcase/priming-records?relayToken=\(token)")
        #expect(Self.ids(second).count == 3)
        #expect(second["relayToken"] == .null)
        #expect(Set(Self.ids(first) + Self.ids(second)).count == 6)
        #expect(second["primingRecords"]?["Contact"]?["012000000000000AAA"]?.array?.count == 2)
        let stamp = first["primingRecords"]?["Account"]?["012000000000000AAA"]?[0]?["systemModstamp"]
        #expect(stamp == "2024-02-01T10:00:00.000Z")
        // A token serves once.
        let (again, error) = await harness.send("GET", "connect/briefcase/priming-records?relayToken=\(token)")
        #expect(again == 400)
        #expect(SimulatorHarness.errorCode(error) == "INVALID_RELAY_TOKEN")
    }

    @Test func changedAfterTimestampKeepsOnlyLaterRecords() async throws {
        let harness = try SimulatorHarness(data: try Self.data())
        let (_, page) = await harness.send(
            "GET", "connect/briefcase/priming-records?changedAfterTimestamp=2024-02-01T10%3A02%3A00.000Z")
        // A3 is Banking; A4 is the only later Retail Account; the Contacts were loaded at the start time.
        #expect(page["primingRecords"]?["Account"]?["012000000000000AAA"]?.array?.count == 1)
        let (status, bad) = await harness.send("GET", "connect/briefcase/priming-records?changedAfterTimestamp=soon")
        #expect(status == 400)
        #expect(SimulatorHarness.errorCode(bad) == "INVALID_INPUT")
    }

    @Test func aRuleTheInterpreterRefusesIsARuleErrorAndPrimesNothing() async throws {
        var data = try Self.data()
        data.briefcases = [
            Briefcase(name: "Broken", rules: [Briefcase.Rule(objectType: "Account", filter: "Nope = 1")])
        ]
        let harness = try SimulatorHarness(data: data)
        let (_, page) = await harness.send("GET", "connect/briefcase/priming-records")
        #expect(page["ruleErrors"] == [["ruleId": "Broken/0"]])
        #expect(Self.ids(page).isEmpty)
        #expect(page["stats"]?["ruleCountServed"] == 0)
    }

    @Test func layoutsAreMadeFromTheSchemaInFullOrCompactForm() async throws {
        let harness = try SimulatorHarness()
        let (status, full) = await harness.send("GET", "ui-api/layout/Account?mode=Edit&formFactor=Large")
        #expect(status == 200)
        #expect(full["objectApiName"] == "Account")
        #expect(full["layoutType"] == "Full")
        #expect(full["mode"] == "Edit")
        let items = full["sections"]?[0]?["layoutRows"]?.array?.flatMap { $0["layoutItems"]?.array ?? [] } ?? []
        #expect(items.contains { $0["layoutComponents"]?[0]?["apiName"] == "Name" && $0["required"] == true })
        let (_, compact) = await harness.send("GET", "ui-api/layout/Account?layoutType=Compact")
        let compactItems = compact["sections"]?[0]?["layoutRows"]?.array?.flatMap { $0["layoutItems"]?.array ?? [] }
        #expect(compactItems?.count == 4)
        #expect(compact["id"] != full["id"])
        let (missing, _) = await harness.send("GET", "ui-api/layout/Nothing")
        #expect(missing == 404)
        let (bad, _) = await harness.send("GET", "ui-api/layout/Account?layoutType=Tiny")
        #expect(bad == 400)
    }
}
