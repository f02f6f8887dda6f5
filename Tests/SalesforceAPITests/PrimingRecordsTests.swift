import Determinism
import LosslessJSON
import SalesforceAPI
import Testing

/// Reading `connect/briefcase/priming-records` answers.
@Suite struct PrimingRecordsTests {
    @Test func aPageMergesRecordTypesAndKeepsTheRelayTokenAndCounts() throws {
        let json = try JSONValue(
            parsing: """
                {"primingRecords": {
                   "Account": {"012Hs00000Rt001IAB": [{"id": "001Hs00000AbC01IAF", "systemModstamp": "2024-05-01T12:34:56.000Z"}],
                               "012000000000000AAA": [{"id": "001Hs00000AbC02IAF", "systemModstamp": "2024-05-01T12:35:56.000Z"}]},
                   "Contact": {"012000000000000AAA": [{"id": "003Hs00000XyZ01IAF", "systemModstamp": "2024-05-01T12:35:00.000Z"}]}},
                 "relayToken": "next", "ruleErrors": [{"ruleId": "rule-1"}],
                 "stats": {"recordCountServed": 3, "recordCountTotal": 9, "ruleCountServed": 1, "ruleCountTotal": 2}}
                """)
        let page = try PrimingRecords(json: json)
        #expect(page.types == ["Account", "Contact"])
        #expect(page.recordsByType["Account"]?.map(\.id) == ["001Hs00000AbC02IAF", "001Hs00000AbC01IAF"])
        #expect(page.recordCount == 3)
        #expect(page.recordCountTotal == 9)
        #expect(page.relayToken == "next")
        #expect(page.ruleErrors.count == 1)
    }

    @Test(arguments: [
        #"{"relayToken": null}"#, #"{"primingRecords": {"Account": []}}"#,
        #"{"primingRecords": {"Account": {"012000000000000AAA": [{"systemModstamp": "x"}]}}}"#,
    ])
    func malformedPagesAreInvalidResponses(text: String) throws {
        let json = try JSONValue(parsing: text)
        #expect(throws: SalesforceError.self) { try PrimingRecords(json: json) }
    }

    @Test func primingTimestampsAreUTCWithAZ() {
        #expect(WallTime(millisecondsSinceEpoch: 1_643_601_010_000).primingTimestamp == "2022-01-31T03:50:10.000Z")
    }
}
