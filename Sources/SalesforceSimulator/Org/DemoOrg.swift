import Determinism
public import LosslessJSON
import SalesforceAPI

/// Generates the demo org (Accounts with Contacts) deterministically from a seed.
///
/// The committed `Resources/demo-org.json` is `DemoOrg.generate()` serialised; regenerate it
/// with `salesforce-simulator --write-demo-data FILE`.
public enum DemoOrg {
    /// Accounts in the committed demo file.
    public static let accountCountDefault = 1000
    /// Contacts per Account in the committed demo file.
    public static let contactsPerAccountDefault = 3

    private static let adjectives = [
        "Blue", "Bright", "Cedar", "Delta", "Eastern", "Golden", "Granite", "Harbor", "Iron", "Lunar", "Maple",
        "Northern", "Oak", "Pacific", "Quantum", "Red", "Silver", "Summit", "United", "Western",
    ]
    private static let nouns = [
        "Analytics", "Bakery", "Builders", "Consulting", "Dynamics", "Energy", "Foods", "Freight", "Health",
        "Labs", "Logistics", "Media", "Motors", "Partners", "Robotics", "Software", "Studios", "Systems", "Textiles",
        "Travel",
    ]
    private static let industries = [
        "Technology", "Manufacturing", "Retail", "Healthcare", "Finance", "Energy", "Media",
    ]
    private static let cities = ["Berlin", "Boston", "Lyon", "Madrid", "Osaka", "Oslo", "Paris", "Seattle", "Sydney"]
    private static let firstNames = [
        "Ada", "Ben", "Chloe", "David", "Elena", "Farid", "Grace", "Hugo", "Ines", "Jonas", "Kara", "Liam", "Maya",
        "Noah", "Olga", "Pablo", "Quinn", "Rosa", "Sami", "Tara",
    ]
    private static let lastNames = [
        "Almeida", "Berger", "Chen", "Dubois", "Evans", "Fischer", "Garcia", "Hansen", "Ito", "Jensen", "Kowalski",
        "Larsen", "Moreau", "Novak", "Okafor", "Petrov", "Rossi", "Schmidt", "Tanaka", "Weber",
    ]
    private static let titles = ["CEO", "CFO", "Engineer", "Buyer", "Director", "Manager", "Analyst", "Consultant"]

    /// The day the demo org's records were last modified by: a year of edits before it, so a
    /// reSync after the first sync down fetches what changed since, not the whole org.
    static let lastEditBefore = WallTime(millisecondsSinceEpoch: 1_704_067_200_000)  // 2024-01-01

    /// The audit dates of the `index`th record of `count`: created 30 days before it was last
    /// modified, the last modifications spread evenly over the year before `lastEditBefore`.
    static func auditDates(_ index: Int, of count: Int) -> [String: JSONValue] {
        let year: Int64 = 365 * 86_400_000
        let modified = lastEditBefore.millisecondsSinceEpoch - year + year * Int64(index) / Int64(count + 1)
        let stamp = JSONValue.string(WallTime(millisecondsSinceEpoch: modified / 1000 * 1000).salesforceFormat)
        let created = WallTime(millisecondsSinceEpoch: (modified - 30 * 86_400_000) / 1000 * 1000)
        return ["CreatedDate": .string(created.salesforceFormat), "LastModifiedDate": stamp, "SystemModstamp": stamp]
    }

    /// The data-file JSON of a demo org.
    public static func generate(
        accountCount: Int = accountCountDefault, contactsPerAccount: Int = contactsPerAccountDefault,
        seed: UInt64 = 2024
    ) -> JSONValue {
        var random = SplitMix64(seed: seed)
        func pick(_ list: [String]) -> String { list[Int(random.next() % UInt64(list.count))] }
        var accounts: [JSONValue] = []
        var contacts: [JSONValue] = []
        for index in 1...max(accountCount, 1) {
            let id = SalesforceID(keyPrefix: "001", counter: UInt64(index)).rawValue
            let name = "\(pick(adjectives)) \(pick(nouns)) \(index)"
            let account: [String: JSONValue] = [
                "Id": .string(id), "Name": .string(name), "Industry": .string(pick(industries)),
                "BillingCity": .string(pick(cities)), "Phone": .string("+1 555 \(1000 + index)"),
                "NumberOfEmployees": .number(JSONNumber(Int64(random.next() % 5000))),
                "AnnualRevenue": .number(JSONNumber(Int64(random.next() % 900 + 100) * 10_000)),
                "Rating": index % 4 == 0 ? .null : .string(pick(["Hot", "Warm", "Cold"])),
                "ExternalId__c": .string("ACC-\(index)"),
            ]
            accounts.append(.object(account.merging(auditDates(index, of: accountCount)) { given, _ in given }))
            for contact in 0..<contactsPerAccount {
                let counter = UInt64((index - 1) * contactsPerAccount + contact + 1)
                let first = pick(firstNames)
                let last = pick(lastNames)
                let fields: [String: JSONValue] = [
                    "Id": .string(SalesforceID(keyPrefix: "003", counter: counter).rawValue),
                    "FirstName": .string(first), "LastName": .string(last),
                    "Email": .string("\(first.lowercased()).\(last.lowercased())\(counter)@example.com"),
                    "Title": .string(pick(titles)), "AccountId": .string(id),
                    "Birthdate": .string(
                        "19\(60 + Int(random.next() % 40))-0\(1 + Int(random.next() % 9))-1\(Int(random.next() % 9))"),
                ]
                contacts.append(.object(fields.merging(auditDates(index, of: accountCount)) { given, _ in given }))
            }
        }
        return ["records": ["Account": .array(accounts), "Contact": .array(contacts)]]
    }
}
