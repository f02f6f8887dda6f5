import LosslessJSON
import SalesforceAPI
import SalesforceSimulator
import Testing

/// One SOQL query and what it must answer.
struct SOQLCase: Sendable, CustomTestStringConvertible {
    enum Expected: Sendable {
        /// The `Name` of each row, in order.
        case names([String])
        /// `totalSize` of a COUNT() query.
        case count(Int)
        /// An error answer with this code.
        case error(String)
    }

    var soql: String
    var expected: Expected

    init(_ soql: String, _ expected: Expected) {
        self.soql = soql
        self.expected = expected
    }

    var testDescription: String { soql }
}

@Suite struct SOQLInterpreterTests {
    static let all = ["Acme", "Bravo", "charlie", "Delta", "Echo 100%"]

    static let operatorCases: [SOQLCase] = [
        SOQLCase("SELECT Name FROM Account", .names(all)),
        SOQLCase("SELECT Name FROM Account WHERE Name = 'acme'", .names(["Acme"])),
        SOQLCase("SELECT Name FROM Account WHERE Name != 'Acme'", .names(["Bravo", "charlie", "Delta", "Echo 100%"])),
        SOQLCase("SELECT Name FROM Account WHERE Name <> 'Acme'", .names(["Bravo", "charlie", "Delta", "Echo 100%"])),
        SOQLCase("SELECT Name FROM Account WHERE NumberOfEmployees > 50", .names(["Acme", "charlie"])),
        SOQLCase("SELECT Name FROM Account WHERE NumberOfEmployees >= 50", .names(["Acme", "Bravo", "charlie"])),
        SOQLCase("SELECT Name FROM Account WHERE NumberOfEmployees < 50", .names(["Echo 100%"])),
        SOQLCase("SELECT Name FROM Account WHERE NumberOfEmployees <= 50", .names(["Bravo", "Echo 100%"])),
        SOQLCase(
            "SELECT Name FROM Account WHERE NumberOfEmployees > -1", .names(["Acme", "Bravo", "charlie", "Echo 100%"])),
        SOQLCase("SELECT Name FROM Account WHERE AnnualRevenue < 10.5", .names(["Echo 100%"])),
        SOQLCase("SELECT Name FROM Account WHERE Name < 'C' ORDER BY Name", .names(["Acme", "Bravo"])),
        SOQLCase("SELECT Name FROM Account WHERE Name LIKE 'A%'", .names(["Acme"])),
        SOQLCase("SELECT Name FROM Account WHERE Name LIKE '%o'", .names(["Bravo"])),
        SOQLCase("SELECT Name FROM Account WHERE Name LIKE '_elta'", .names(["Delta"])),
        SOQLCase("SELECT Name FROM Account WHERE Name LIKE '%100\\%'", .names(["Echo 100%"])),
        SOQLCase("SELECT Name FROM Account WHERE Name LIKE 'C%'", .names(["charlie"])),
        SOQLCase("SELECT Name FROM Account WHERE Name IN ('Acme', 'delta')", .names(["Acme", "Delta"])),
        SOQLCase(
            "SELECT Name FROM Account WHERE Name NOT IN ('Acme', 'Delta')", .names(["Bravo", "charlie", "Echo 100%"])),
        SOQLCase("SELECT Name FROM Account WHERE Industry IN ('Retail')", .names(["Bravo", "Echo 100%"])),
        SOQLCase("SELECT Name FROM Account WHERE Id IN ('')", .names([])),
        SOQLCase("SELECT Name FROM Account WHERE AnnualRevenue = null", .names(["charlie"])),
        SOQLCase(
            "SELECT Name FROM Account WHERE AnnualRevenue != null", .names(["Acme", "Bravo", "Delta", "Echo 100%"])),
        SOQLCase("SELECT Name FROM Account WHERE Rating != 'Hot'", .names(["Bravo", "Delta"])),
        SOQLCase("SELECT Name FROM Account WHERE NOT Rating = 'Hot'", .names(["Bravo", "Delta"])),
        SOQLCase("SELECT Name FROM Account WHERE Tags__c INCLUDES ('b')", .names(["Acme", "Bravo"])),
        SOQLCase("SELECT Name FROM Account WHERE Tags__c INCLUDES ('a;b')", .names(["Acme"])),
        SOQLCase("SELECT Name FROM Account WHERE Tags__c EXCLUDES ('b')", .names(["Delta"])),
        SOQLCase("SELECT Name FROM Contact WHERE HasOptedOutOfEmail = true", .names(["Bob Jones"])),
        SOQLCase(
            "SELECT Name FROM Contact WHERE HasOptedOutOfEmail = FALSE",
            .names(["Ann Smith", "Cid Smith", "Dee Stone", "Eve Young"])),
        SOQLCase("SELECT Name FROM Account WHERE Description = 'It\\'s fine'", .names(["Echo 100%"])),
        SOQLCase(
            "SELECT Name FROM Account WHERE Id = '\(SalesforceID(keyPrefix: "001", counter: 1).shortForm)'",
            .names(["Acme"])),
        SOQLCase("select name from account where name = 'Acme' for view", .names(["Acme"])),
        SOQLCase(
            "SELECT Name FROM Account WHERE Id IN (SELECT AccountId FROM Contact WHERE LastName = 'Smith')",
            .names(["Acme", "Bravo"])),
        SOQLCase(
            "SELECT Name FROM Account WHERE Id NOT IN (SELECT AccountId FROM Contact WHERE LastName = 'Smith')",
            .names(["charlie", "Delta", "Echo 100%"])),
        SOQLCase("SELECT COUNT() FROM Account WHERE Industry = 'Retail'", .count(2)),
    ]

    static let logicCases: [SOQLCase] = [
        SOQLCase(
            "SELECT Name FROM Account WHERE BillingCity = 'Paris' AND Industry = 'Technology'",
            .names(["Acme", "charlie"])),
        SOQLCase(
            "SELECT Name FROM Account WHERE BillingCity = 'Oslo' OR Industry = 'Finance'",
            .names(["Delta", "Echo 100%"])),
        SOQLCase(
            "SELECT Name FROM Account WHERE (BillingCity = 'Paris' OR BillingCity = 'Oslo') AND Rating = 'Hot'",
            .names(["Acme", "Echo 100%"])),
        SOQLCase(
            "SELECT Name FROM Account WHERE BillingCity = 'Paris' AND (Rating = 'Hot' OR Rating = null)",
            .names(["Acme", "charlie"])),
        SOQLCase("SELECT Name FROM Account WHERE NOT (Industry = 'Retail')", .names(["Acme", "charlie", "Delta"])),
        SOQLCase(
            "SELECT Name FROM Account WHERE NOT (Industry = 'Retail' OR Industry = 'Finance')",
            .names(["Acme", "charlie"])),
        SOQLCase(
            "SELECT Name FROM Account WHERE Industry = 'Technology' AND BillingCity = 'Paris' AND NumberOfEmployees > 200",
            .names(["charlie"])),
        SOQLCase(
            "SELECT Name FROM Account WHERE Name = 'Acme' OR Name = 'Bravo' OR Name = 'Delta'",
            .names(["Acme", "Bravo", "Delta"])),
        SOQLCase("SELECT Name FROM Account WHERE Name = 'a' AND Name = 'b' OR Name = 'c'", .error("MALFORMED_QUERY")),
        SOQLCase("SELECT Name FROM Account WHERE Name = 'a' OR Name = 'b' AND Name = 'c'", .error("MALFORMED_QUERY")),
        SOQLCase("SELECT Name FROM Account WHERE (Name = 'a' OR Name = 'b' AND Name = 'c')", .error("MALFORMED_QUERY")),
    ]

    static let dateCases: [SOQLCase] = [
        SOQLCase(
            "SELECT Name FROM Account WHERE CreatedDate > 2024-02-01T00:00:00Z", .names(["Bravo", "charlie", "Delta"])),
        SOQLCase("SELECT Name FROM Account WHERE CreatedDate < 2024-01-01T00:00:00Z", .names(["Echo 100%"])),
        SOQLCase("SELECT Name FROM Account WHERE CreatedDate = 2024-03-01T00:00:00Z", .names(["charlie"])),
        SOQLCase(
            "SELECT Name FROM Account WHERE CreatedDate >= 2024-03-01T00:00:00.000+0000", .names(["charlie", "Delta"])),
        SOQLCase("SELECT Name FROM Account WHERE CreatedDate > 2024-03-01T00:00:00.999Z", .names(["Delta"])),
        SOQLCase("SELECT Name FROM Account WHERE CreatedDate = 2024-03-01", .names(["charlie", "Delta"])),
        SOQLCase("SELECT Name FROM Account WHERE CreatedDate < 2024-01-10T11:00:00+01:00", .names(["Echo 100%"])),
        SOQLCase(
            "SELECT Name FROM Account WHERE CreatedDate <= 2024-01-10T11:00:00+01:00", .names(["Acme", "Echo 100%"])),
        SOQLCase(
            "SELECT Name FROM Account WHERE CreatedDate > 2024-01-10T05:00:00.000-0500",
            .names(["Bravo", "charlie", "Delta"])),
        SOQLCase("SELECT Name FROM Contact WHERE Birthdate > 1985-01-01", .names(["Bob Jones"])),
        SOQLCase("SELECT Name FROM Contact WHERE Birthdate = 1980-05-01", .names(["Ann Smith"])),
        SOQLCase("SELECT Name FROM Contact WHERE Birthdate = null", .names(["Cid Smith", "Eve Young"])),
        SOQLCase("SELECT Name FROM Account WHERE CreatedDate = YESTERDAY", .names(["Echo 100%"])),
        SOQLCase("SELECT Name FROM Account WHERE CreatedDate = TODAY", .names([])),
        SOQLCase("SELECT Name FROM Account WHERE CreatedDate = LAST_N_DAYS:1", .names(["Echo 100%"])),
        // The logical clock starts on Monday 2024-01-01.
        SOQLCase("SELECT Name FROM Account WHERE CreatedDate = THIS_WEEK", .names(["Echo 100%"])),
        SOQLCase("SELECT Name FROM Account WHERE CreatedDate = NEXT_WEEK", .names(["Acme"])),
        SOQLCase("SELECT Name FROM Account WHERE CreatedDate = LAST_MONTH", .names(["Echo 100%"])),
        SOQLCase("SELECT Name FROM Account WHERE CreatedDate = THIS_MONTH", .names(["Acme"])),
        SOQLCase("SELECT Name FROM Account WHERE CreatedDate > THIS_MONTH", .names(["Bravo", "charlie", "Delta"])),
        SOQLCase(
            "SELECT Name FROM Account WHERE CreatedDate = THIS_YEAR", .names(["Acme", "Bravo", "charlie", "Delta"])),
        SOQLCase("SELECT Name FROM Account WHERE CreatedDate = LAST_YEAR", .names(["Echo 100%"])),
        SOQLCase(
            "SELECT Name FROM Contact WHERE Birthdate < LAST_YEAR", .names(["Ann Smith", "Bob Jones", "Dee Stone"])),
        SOQLCase("SELECT Name FROM Account WHERE CreatedDate = SOME_DAY", .error("MALFORMED_QUERY")),
        SOQLCase("SELECT Name FROM Account WHERE CreatedDate > 2024-13-45T00:00:00Z", .error("MALFORMED_QUERY")),
        SOQLCase("SELECT Name FROM Account WHERE CreatedDate > '2024-01-01T00:00:00Z'", .error("MALFORMED_QUERY")),
    ]

    static let relationshipCases: [SOQLCase] = [
        SOQLCase(
            "SELECT Name, Account.Name FROM Contact WHERE Account.Name = 'Acme'", .names(["Ann Smith", "Bob Jones"])),
        SOQLCase("SELECT Name FROM Contact WHERE Account.Industry = 'Retail'", .names(["Cid Smith"])),
        SOQLCase("SELECT Name FROM Contact WHERE AccountId = null", .names(["Dee Stone"])),
        SOQLCase(
            "SELECT Name FROM Contact WHERE Account.Owner.Name = 'Simulator User'",
            .names(["Ann Smith", "Bob Jones", "Cid Smith", "Eve Young"])),
        SOQLCase(
            "SELECT Name FROM Contact ORDER BY Account.Name NULLS LAST, Name",
            .names(["Ann Smith", "Bob Jones", "Cid Smith", "Eve Young", "Dee Stone"])),
        SOQLCase("SELECT Name, (SELECT Name FROM Contacts OFFSET 1) FROM Account", .error("MALFORMED_QUERY")),
        SOQLCase("SELECT Name, (SELECT Name FROM Widgets) FROM Account", .error("INVALID_TYPE")),
        SOQLCase("SELECT Name FROM Contact WHERE Bogus.Name = 'x'", .error("INVALID_FIELD")),
        SOQLCase(
            "SELECT Account.Owner.CreatedBy.CreatedBy.CreatedBy.CreatedBy.Name FROM Contact", .error("MALFORMED_QUERY")),
        SOQLCase(
            "SELECT Name FROM Contact WHERE Account.Owner.CreatedBy.CreatedBy.CreatedBy.Name = 'Simulator User'",
            .names(["Ann Smith", "Bob Jones", "Cid Smith", "Eve Young"])),
    ]

    static let orderCases: [SOQLCase] = [
        SOQLCase("SELECT Name FROM Account ORDER BY Name", .names(all)),
        SOQLCase("SELECT Name FROM Account ORDER BY Name DESC", .names(all.reversed())),
        SOQLCase(
            "SELECT Name FROM Account ORDER BY Rating", .names(["charlie", "Delta", "Acme", "Echo 100%", "Bravo"])),
        SOQLCase(
            "SELECT Name FROM Account ORDER BY Rating NULLS LAST",
            .names(["Delta", "Acme", "Echo 100%", "Bravo", "charlie"])),
        SOQLCase(
            "SELECT Name FROM Account ORDER BY Rating DESC", .names(["charlie", "Bravo", "Acme", "Echo 100%", "Delta"])),
        SOQLCase(
            "SELECT Name FROM Account ORDER BY Rating DESC NULLS LAST",
            .names(["Bravo", "Acme", "Echo 100%", "Delta", "charlie"])),
        SOQLCase(
            "SELECT Name FROM Account ORDER BY Industry, NumberOfEmployees DESC",
            .names(["Delta", "Bravo", "Echo 100%", "charlie", "Acme"])),
        SOQLCase(
            "SELECT Name FROM Account ORDER BY AnnualRevenue DESC NULLS LAST",
            .names(["Delta", "Acme", "Bravo", "Echo 100%", "charlie"])),
        SOQLCase(
            "SELECT Name FROM Account ORDER BY CreatedDate", .names(["Echo 100%", "Acme", "Bravo", "charlie", "Delta"])),
        SOQLCase("SELECT Name FROM Account ORDER BY Name LIMIT 2", .names(["Acme", "Bravo"])),
        SOQLCase("SELECT Name FROM Account ORDER BY Name LIMIT 2 OFFSET 2", .names(["charlie", "Delta"])),
        SOQLCase("SELECT Name FROM Account ORDER BY Name OFFSET 4", .names(["Echo 100%"])),
        SOQLCase("SELECT Name FROM Account LIMIT 0", .names([])),
        SOQLCase("SELECT Name FROM Account OFFSET 10", .names([])),
        SOQLCase("SELECT Name FROM Account OFFSET 2001", .error("NUMBER_OUTSIDE_VALID_RANGE")),
    ]

    static let errorCases: [SOQLCase] = [
        SOQLCase("SELEKT Name FROM Account", .error("MALFORMED_QUERY")),
        SOQLCase("SELECT Bacon__c FROM Account", .error("INVALID_FIELD")),
        SOQLCase("SELECT Name FROM Nope", .error("INVALID_TYPE")),
        SOQLCase("SELECT Name, name FROM Account", .error("MALFORMED_QUERY")),
        SOQLCase("SELECT Name FROM Account WHERE Name = 'open", .error("MALFORMED_QUERY")),
        SOQLCase("SELECT Name FROM Account WHERE Name = 5", .error("MALFORMED_QUERY")),
        SOQLCase("SELECT Name FROM Account WHERE", .error("MALFORMED_QUERY")),
        SOQLCase("SELECT FROM Account", .error("MALFORMED_QUERY")),
        SOQLCase("SELECT Name FROM Account LIMIT 1 extra", .error("MALFORMED_QUERY")),
        SOQLCase("SELECT Name FROM Account WHERE Name LIKE 5", .error("MALFORMED_QUERY")),
        SOQLCase("SELECT Name FROM Account WHERE Name = 'a\\q'", .error("MALFORMED_QUERY")),
        SOQLCase("SELECT Name FROM Account ORDER BY Missing__c", .error("INVALID_FIELD")),
        SOQLCase("SELECT Name FROM Account WHERE NumberOfEmployees LIKE '1%'", .error("MALFORMED_QUERY")),
    ]

    @Test(arguments: operatorCases + logicCases + dateCases + relationshipCases + orderCases + errorCases)
    func queryAnswersAsExpected(_ testCase: SOQLCase) async throws {
        let harness = try SimulatorHarness()
        let (status, json) = await harness.query(testCase.soql)
        switch testCase.expected {
        case .names(let names):
            #expect(status == 200, "\(json)")
            #expect(json["records"]?.array?.map { $0["Name"]?.string ?? "<null>" } == names)
            #expect(json["totalSize"]?.number?.int64Value == Int64(names.count))
        case .count(let count):
            #expect(status == 200)
            #expect(json["totalSize"]?.number?.int64Value == Int64(count))
            #expect(json["records"]?.array?.isEmpty == true)
        case .error(let code):
            #expect(status == 400, "\(json)")
            #expect(SimulatorHarness.errorCode(json) == code, "\(json)")
        }
    }

    @Test func caseCountCoversTheAcceptanceFloor() {
        let total = [
            Self.operatorCases, Self.logicCases, Self.dateCases, Self.relationshipCases, Self.orderCases,
            Self.errorCases,
        ].map(\.count)
            .reduce(0, +)
        #expect(total >= 60)
    }

    @Test func relationshipFieldRendersNestedObjectOrNull() async throws {
        let harness = try SimulatorHarness()
        let (_, json) = await harness.query(
            "select name, account.name from contact where lastname in ('Jones', 'Stone')")
        let records = json["records"]?.array ?? []
        #expect(records.count == 2)
        #expect(records.first?["Account"]?["Name"]?.string == "Acme")
        #expect(records.first?["Account"]?["attributes"]?["type"]?.string == "Account")
        #expect(records.last?["Account"] == .null)
        #expect(records.first?["Name"]?.string == "Bob Jones")
    }

    @Test func subqueryReturnsChildrenPerParentAndNullWhenNone() async throws {
        let harness = try SimulatorHarness()
        let (status, json) = await harness.query(
            "SELECT Name, (SELECT Name FROM Contacts ORDER BY Name DESC) FROM Account WHERE Name IN ('Acme', 'charlie')"
        )
        #expect(status == 200)
        let records = json["records"]?.array ?? []
        #expect(
            records.first?["Contacts"]?["records"]?.array?.map { $0["Name"]?.string } == ["Bob Jones", "Ann Smith"])
        #expect(records.first?["Contacts"]?["totalSize"]?.number?.int64Value == 2)
        #expect(records.first?["Contacts"]?["done"]?.bool == true)
        #expect(records.last?["Contacts"] == .null)
    }

    @Test func subqueryAppliesItsOwnLimit() async throws {
        let harness = try SimulatorHarness()
        let (_, json) = await harness.query(
            "SELECT Name, (SELECT Name FROM Contacts WHERE FirstName != 'Zed' ORDER BY Name LIMIT 1) FROM Account WHERE Name = 'Acme'"
        )
        #expect(json["records"]?[0]?["Contacts"]?["records"]?.array?.map { $0["Name"]?.string } == ["Ann Smith"])
    }

    @Test func queryAllIncludesDeletedRecordsWithIsDeleted() async throws {
        let harness = try SimulatorHarness()
        let (_, live) = await harness.query("SELECT Name FROM Account WHERE Name = 'Foxtrot'")
        #expect(live["totalSize"]?.number?.int64Value == 0)
        let (_, all) = await harness.query("SELECT Name, IsDeleted FROM Account WHERE IsDeleted = true", all: true)
        #expect(all["records"]?.array?.map { $0["Name"]?.string } == ["Foxtrot"])
        #expect(all["records"]?[0]?["IsDeleted"]?.bool == true)
    }

    @Test func recordsStartWithAttributesAndKeepCanonicalNames() async throws {
        let harness = try SimulatorHarness()
        let (_, json) = await harness.query("SELECT id, NAME, billingcity FROM ACCOUNT WHERE Name = 'Acme'")
        let record = json["records"]?[0]
        #expect(record?["Id"]?.string == SOQLFixture.account(1))
        #expect(record?["Name"]?.string == "Acme")
        #expect(record?["BillingCity"]?.string == "Paris")
        #expect(
            record?["attributes"]?["url"]?.string == "/services/data/v66.0/sobjects/Account/\(SOQLFixture.account(1))")
    }
}

extension JSONValue {
    /// Array element access for tests.
    subscript(index: Int) -> JSONValue? {
        guard let array, index < array.count else { return nil }
        return array[index]
    }
}
