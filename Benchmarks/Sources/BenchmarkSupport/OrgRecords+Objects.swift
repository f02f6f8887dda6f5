import Determinism
import LosslessJSON

// Each object's own fields, beside the common ones ``OrgRecords`` gives every record: the fields
// of the standard objects as a query of all of them returns, a few custom ones (`__c`) as orgs
// add, and nulls where orgs leave fields empty.

extension OrgRecords {
    /// An Account's own fields (60 with the common ones).
    static func accountFields(using generator: inout SplitMix64) -> [String: JSONValue] {
        let name = OrgValues.company(using: &generator)
        let domain = name.split(separator: " ").prefix(2).joined().lowercased()
        var fields: [String: JSONValue] = [
            "Name": .string(name),
            "Type": OrgValues.picklist(
                ["Customer - Direct", "Customer - Channel", "Prospect", "Partner", "Other"], nullShare: 0.1,
                using: &generator),
            "ParentId": OrgValues.sometimes(0.15, using: &generator) { .string(OrgValues.accountID(using: &$0)) },
            "Phone": .string(OrgValues.phone(using: &generator)),
            "Fax": OrgValues.sometimes(0.3, using: &generator) { .string(OrgValues.phone(using: &$0)) },
            "AccountNumber": OrgValues.sometimes(0.5, using: &generator) {
                .string("CD\(Int.random(in: 100_000..<999_999, using: &$0))")
            },
            "Website": .string("www.\(domain).com"),
            "PhotoUrl": .string("/services/images/photo/\(OrgValues.lookupID("001", using: &generator))"),
            "Industry": OrgValues.picklist(OrgValues.industries, nullShare: 0.2, using: &generator),
            "NumberOfEmployees": .number(JSONNumber(Int64.random(in: 1..<50_000, using: &generator))),
            "Ownership": OrgValues.picklist(
                ["Public", "Private", "Subsidiary", "Other"], nullShare: 0.5, using: &generator),
            "TickerSymbol": OrgValues.sometimes(0.15, using: &generator) {
                .string(
                    String(name.prefix(4).uppercased().filter(\.isLetter)) + String(Int.random(in: 0..<9, using: &$0)))
            },
            "Description": OrgValues.description(using: &generator),
            "Site": .null, "DunsNumber": .null, "Tradestyle": .null,
            "NaicsCode": .null, "NaicsDesc": .null, "Sic": .null, "SicDesc": .null,

            "YearStarted": OrgValues.sometimes(0.4, using: &generator) {
                .string(String(Int.random(in: 1900..<2023, using: &$0)))
            },
            "CleanStatus": .string(OrgValues.pick(["Pending", "Matched", "Different", "Skipped"], using: &generator)),
            "AccountSource": OrgValues.picklist(OrgValues.leadSources, nullShare: 0.3, using: &generator),
            "CustomerPriority__c": OrgValues.picklist(["High", "Medium", "Low"], nullShare: 0.3, using: &generator),
            "SLA__c": OrgValues.picklist(["Gold", "Silver", "Platinum", "Bronze"], nullShare: 0.3, using: &generator),
            "Active__c": OrgValues.picklist(["Yes", "No"], nullShare: 0.2, using: &generator),
            "NumberofLocations__c": .number(JSONNumber(Double(Int.random(in: 1..<500, using: &generator)))),
            "UpsellOpportunity__c": OrgValues.picklist(["Maybe", "No", "Yes"], nullShare: 0.4, using: &generator),
            "SLASerialNumber__c": OrgValues.sometimes(0.5, using: &generator) {
                .string(String(Int.random(in: 1000..<9999, using: &$0)))
            },
            "SLAExpirationDate__c": OrgValues.sometimes(0.5, using: &generator) {
                .string(OrgValues.date(Int64.random(in: 1_700_000_000..<1_800_000_000, using: &$0)))
            },
        ]
        fields.merge(OrgValues.address("Billing", using: &generator)) { _, new in new }
        let shipping =
            Double.random(in: 0..<1, using: &generator) < 0.6
            ? OrgValues.address("Shipping", using: &generator) : OrgValues.emptyAddress("Shipping")
        fields.merge(shipping) { _, new in new }
        return fields
    }

    /// A Contact's own fields (56 with the common ones).
    static func contactFields(using generator: inout SplitMix64) -> [String: JSONValue] {
        let first = OrgValues.pick(OrgValues.firstNames, using: &generator)
        let last = OrgValues.pick(OrgValues.lastNames, using: &generator)
        let domain = OrgValues.pick(OrgValues.companyWords, using: &generator).lowercased()
        var fields: [String: JSONValue] = [
            "AccountId": OrgValues.sometimes(0.95, using: &generator) { .string(OrgValues.accountID(using: &$0)) },
            "FirstName": .string(first), "LastName": .string(last), "Name": .string("\(first) \(last)"),
            "Salutation": OrgValues.picklist(
                ["Mr.", "Ms.", "Mrs.", "Dr.", "Prof."], nullShare: 0.4, using: &generator),
            "Phone": .string(OrgValues.phone(using: &generator)),
            "MobilePhone": OrgValues.sometimes(0.6, using: &generator) { .string(OrgValues.phone(using: &$0)) },
            "Fax": .null, "HomePhone": .null, "OtherPhone": .null, "AssistantPhone": .null, "AssistantName": .null,
            "ReportsToId": OrgValues.sometimes(0.2, using: &generator) {
                .string(OrgValues.lookupID("003", using: &$0))
            },
            "Email": .string("\(first.lowercased()).\(last.lowercased())@\(domain).com"),
            "Title": OrgValues.picklist(OrgValues.titles, nullShare: 0.2, using: &generator),
            "Department": OrgValues.picklist(OrgValues.departments, nullShare: 0.4, using: &generator),
            "LeadSource": OrgValues.picklist(OrgValues.leadSources, nullShare: 0.3, using: &generator),
            "Birthdate": OrgValues.sometimes(0.2, using: &generator) {
                .string(OrgValues.date(Int64.random(in: -300_000_000..<1_000_000_000, using: &$0)))
            },
            "Description": OrgValues.description(using: &generator),
            "HasOptedOutOfEmail": .bool(Double.random(in: 0..<1, using: &generator) < 0.1),
            "HasOptedOutOfFax": false, "DoNotCall": .bool(Double.random(in: 0..<1, using: &generator) < 0.05),
            "LastCURequestDate": .null, "LastCUUpdateDate": .null, "EmailBouncedReason": .null,
            "EmailBouncedDate": .null, "IsEmailBounced": false, "Jigsaw": .null, "JigsawContactId": .null,
            "IndividualId": .null,
            "PhotoUrl": .string("/services/images/photo/\(OrgValues.lookupID("003", using: &generator))"),
            "CleanStatus": .string(OrgValues.pick(["Pending", "Matched", "Skipped"], using: &generator)),
            "Level__c": OrgValues.picklist(["Primary", "Secondary", "Tertiary"], nullShare: 0.5, using: &generator),
            "Languages__c": OrgValues.picklist(
                ["English", "Spanish", "French", "German"], nullShare: 0.6, using: &generator),
        ]
        fields.merge(OrgValues.address("Mailing", using: &generator)) { _, new in new }
        return fields
    }

    /// An Opportunity's own fields (46 with the common ones).
    static func opportunityFields(using generator: inout SplitMix64) -> [String: JSONValue] {
        let stage = Int.random(in: 0..<OrgValues.stages.count, using: &generator)
        let closed = stage >= OrgValues.stages.count - 2
        let amount = Double(Int.random(in: 1..<2_000, using: &generator)) * 250
        let probability = closed ? (stage == OrgValues.stages.count - 2 ? 100 : 0) : (stage + 1) * 10
        let company = OrgValues.company(using: &generator)
        let closeDate = Int64.random(in: 1_700_000_000..<1_760_000_000, using: &generator)
        return [
            "AccountId": .string(OrgValues.accountID(using: &generator)),
            "Name": .string("\(company) - \(OrgValues.pick(OrgValues.products, using: &generator))"),
            "IsPrivate": false,
            "Description": OrgValues.description(using: &generator),
            "StageName": .string(OrgValues.stages[stage]),
            "Amount": OrgValues.sometimes(0.9, using: &generator) { _ in .number(JSONNumber(amount)) },
            "Probability": .number(JSONNumber(Double(probability))),
            "ExpectedRevenue": .number(JSONNumber(amount * Double(probability) / 100)),
            "TotalOpportunityQuantity": OrgValues.sometimes(0.3, using: &generator) {
                .number(JSONNumber(Double(Int.random(in: 1..<100, using: &$0))))
            },
            "CloseDate": .string(OrgValues.date(closeDate)),
            "Type": OrgValues.picklist(
                ["New Customer", "Existing Customer - Upgrade", "Existing Customer - Replacement"], nullShare: 0.2,
                using: &generator),
            "NextStep": OrgValues.sometimes(0.4, using: &generator) { .string(OrgValues.longText(20, 80, using: &$0)) },
            "LeadSource": OrgValues.picklist(OrgValues.leadSources, nullShare: 0.3, using: &generator),
            "IsClosed": .bool(closed), "IsWon": .bool(closed && probability == 100),
            "ForecastCategory": .string(closed ? "Closed" : (probability >= 70 ? "Forecast" : "Pipeline")),
            "ForecastCategoryName": .string(closed ? "Closed" : (probability >= 70 ? "Commit" : "Pipeline")),
            "CampaignId": OrgValues.sometimes(0.2, using: &generator) {
                .string(OrgValues.lookupID("701", using: &$0))
            },
            "HasOpportunityLineItem": .bool(Bool.random(using: &generator)),
            "Pricebook2Id": OrgValues.sometimes(0.5, using: &generator) {
                .string(OrgValues.lookupID("01s", using: &$0))
            },
            "LastStageChangeDate": .string(OrgValues.dateTime(closeDate - 30 * 86_400)),
            "FiscalQuarter": .number(JSONNumber(Int64.random(in: 1...4, using: &generator))),
            "FiscalYear": .number(JSONNumber(Int64.random(in: 2023...2026, using: &generator))),
            "Fiscal": .string(
                "\(Int.random(in: 2023...2026, using: &generator)) \(Int.random(in: 1...4, using: &generator))"),
            "ContactId": .null, "HasOpenActivity": false, "HasOverdueTask": false,
            "DeliveryInstallationStatus__c": OrgValues.picklist(
                ["In progress", "Yet to begin", "Completed"], nullShare: 0.5, using: &generator),
            "TrackingNumber__c": OrgValues.sometimes(0.3, using: &generator) {
                .string(String(Int.random(in: 100_000_000..<999_999_999, using: &$0)))
            },
            "OrderNumber__c": OrgValues.sometimes(0.3, using: &generator) {
                .string(String(Int.random(in: 100_000..<999_999, using: &$0)))
            },
            "CurrentGenerators__c": OrgValues.picklist(
                ["John Deere", "Mitsubishi", "Hawkpower"], nullShare: 0.6, using: &generator),
            "MainCompetitors__c": OrgValues.picklist(
                ["John Deere", "Mitsubishi", "Hawkpower"], nullShare: 0.6, using: &generator),
        ]
    }

    /// A Case's own fields (45 with the common ones); its `Name` is its case number.
    static func caseFields(_ index: Int, using generator: inout SplitMix64) -> [String: JSONValue] {
        let number = String(1000 + index)
        let caseNumber = String(repeating: "0", count: max(0, 8 - number.count)) + number
        let status = OrgValues.pick(["New", "Working", "Escalated", "Closed"], using: &generator)
        let first = OrgValues.pick(OrgValues.firstNames, using: &generator)
        let last = OrgValues.pick(OrgValues.lastNames, using: &generator)
        let email = "\(first.lowercased()).\(last.lowercased())@example.com"
        return [
            "CaseNumber": .string(caseNumber), "Name": .string(caseNumber),
            "ContactId": .string(OrgValues.lookupID("003", using: &generator)),
            "AccountId": .string(OrgValues.accountID(using: &generator)),
            "AssetId": OrgValues.sometimes(0.2, using: &generator) { .string(OrgValues.lookupID("02i", using: &$0)) },
            "ParentId": .null, "SourceId": .null,
            "BusinessHoursId": .string(OrgRecords.salesforceID(prefix: "01m", number: 1)),
            "SuppliedName": OrgValues.sometimes(0.3, using: &generator) { _ in .string("\(first) \(last)") },
            "SuppliedEmail": OrgValues.sometimes(0.3, using: &generator) { _ in .string(email) },
            "SuppliedPhone": .null, "SuppliedCompany": .null,
            "Type": OrgValues.picklist(
                ["Mechanical", "Electrical", "Electronic", "Structural", "Other"], nullShare: 0.2, using: &generator),
            "Status": .string(status),
            "Reason": OrgValues.picklist(
                ["Installation", "Equipment Complexity", "Performance", "Breakdown", "Equipment Design", "Feedback"],
                nullShare: 0.3, using: &generator),
            "Origin": .string(OrgValues.pick(["Phone", "Email", "Web"], using: &generator)),
            "Subject": .string(OrgValues.pick(OrgValues.caseSubjects, using: &generator)),
            "Priority": .string(OrgValues.pick(["High", "Medium", "Low"], using: &generator)),
            "Description": OrgValues.description(using: &generator),
            "IsClosed": .bool(status == "Closed"),
            "ClosedDate": status == "Closed"
                ? .string(OrgValues.dateTime(1_710_000_000 + Int64(index))) : .null,
            "IsEscalated": .bool(status == "Escalated"),
            "ContactPhone": .string(OrgValues.phone(using: &generator)),
            "ContactMobile": OrgValues.sometimes(0.5, using: &generator) { .string(OrgValues.phone(using: &$0)) },
            "ContactEmail": .string(email), "ContactFax": .null, "Comments": .null,
            "EngineeringReqNumber__c": OrgValues.sometimes(0.2, using: &generator) {
                .string(String(Int.random(in: 100_000..<999_999, using: &$0)))
            },
            "SLAViolation__c": OrgValues.picklist(["No", "Yes"], nullShare: 0.3, using: &generator),
            "Product__c": OrgValues.picklist(OrgValues.products, nullShare: 0.3, using: &generator),
            "PotentialLiability__c": OrgValues.picklist(["No", "Yes"], nullShare: 0.4, using: &generator),
        ]
    }
}
