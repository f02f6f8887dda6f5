import LosslessJSON
import Testing

@testable import Soups

@Suite struct SoupPathTests {
    let record: JSONValue = [
        "Name": "Acme", "Owner": ["Name": "Ann", "Age": 40], "Empty": nil,
        "Contacts": [["Name": "Bob"], ["Other": 1], ["Name": "Cy"], "text", ["Name": nil]],
    ]

    @Test func projectsObjectsAndNestedObjects() {
        #expect(SoupPath.project(record, "Name") == "Acme")
        #expect(SoupPath.project(record, "Owner.Name") == "Ann")
        #expect(SoupPath.project(record, "Owner.Missing") == nil)
        #expect(SoupPath.project(record, "Name.Deeper") == nil)
        #expect(SoupPath.project(record, "") == record)
    }

    @Test func projectsThroughArraysDroppingElementsWithoutValue() {
        #expect(SoupPath.project(record, "Contacts.Name") == ["Bob", "Cy"])
        #expect(SoupPath.project(record, "Contacts.Missing") == nil)
    }

    @Test func indexFormTreatsNullAsAbsentAndSelectFormKeepsIt() {
        #expect(SoupPath.project(record, "Empty") == nil)
        #expect(SoupPath.project(record, "Empty", keepsNull: true) == .null)
    }
}
