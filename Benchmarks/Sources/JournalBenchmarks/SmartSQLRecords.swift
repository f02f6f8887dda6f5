import BenchmarkSupport
import Determinism
import LosslessJSON

/// The two soups `smart-sql` queries, `accounts` and `contacts`, in one ``RecordShape``, with the
/// values its queries' arguments are drawn from.
///
/// The arguments come from the records themselves, so every query finds rows whichever shape
/// the soups hold: the equality lookups take ids of accounts in the soup, the join filters on
/// industries some account has and the scan on cities some account is billed in. A contact's
/// `AccountId`, when it has one, is always an account of the soup, so the join pairs real rows.
struct SmartSQLRecords {
    /// The `accounts` soup: `Id`, `Name`, `Industry`, `AnnualRevenue` (an integer in
    /// 0..<10,000,000) and `BillingCity` on every record, `Industry` null on some org-shaped ones.
    var accounts: [JSONValue]
    /// The `contacts` soup: `Id`, `AccountId` and `LastName` on every record.
    var contacts: [JSONValue]
    /// The accounts' ids, in the soup's order.
    var accountIDs: [String]
    /// The industries the join filters on, each one that some account has.
    var industries: [String]
    /// The billing cities the scan filters on, each one that some account has.
    var cities: [String]

    /// The seed of every shape's records, as before `--shape` existed, so lorem figures compare.
    static let seed: UInt64 = 26

    /// Generates `count` accounts and `count` contacts of `shape`.
    init(shape: RecordShape, count: Int) {
        switch shape {
        case .lorem: self = Self.lorem(count: count)
        case .org: self = Self.org(count: count)
        }
    }

    private init(
        accounts: [JSONValue], contacts: [JSONValue], accountIDs: [String], industries: [String], cities: [String]
    ) {
        self.accounts = accounts
        self.contacts = contacts
        self.accountIDs = accountIDs
        self.industries = industries
        self.cities = cities
    }

    // MARK: - Arguments

    /// The id the `number`th equality lookup asks for: stepping through the accounts by a prime,
    /// so consecutive lookups land far apart.
    func lookupID(_ number: Int) -> String {
        accountIDs[number * 7919 % accountIDs.count]
    }

    /// The industry the `number`th join filters on.
    func industry(_ number: Int) -> String {
        Self.cycling(industries, number)
    }

    /// The city the `number`th scan filters on.
    func city(_ number: Int) -> String {
        Self.cycling(cities, number)
    }

    /// The `number`th of `values`, cycling; an empty string, which no record has, when there are
    /// none (a soup so small that none of its accounts has an industry).
    private static func cycling(_ values: [String], _ number: Int) -> String {
        values.isEmpty ? "" : values[number % values.count]
    }

    // MARK: - Lorem

    /// The lorem industries: `Industry 0` to `Industry 19`.
    static let loremIndustries = (0..<20).map { "Industry \($0)" }

    /// The id of the lorem account at `index`: `001` and the index, zero-padded to 18 characters.
    static func loremID(_ index: Int) -> String {
        let digits = String(index)
        return "001" + String(repeating: "0", count: max(0, 15 - digits.count)) + digits
    }

    /// The records and arguments of every `smart-sql` figure measured before `--shape`, byte for
    /// byte: the same generator draws in the same order.
    private static func lorem(count: Int) -> SmartSQLRecords {
        var generator = SplitMix64(seed: seed)
        let accounts = (0..<count).map { index -> JSONValue in
            [
                "Id": .string(loremID(index)),
                "Name": .string("Account \(UInt64.random(in: 0..<1_000_000_000, using: &generator))"),
                "Industry": .string(loremIndustries[Int.random(in: 0..<loremIndustries.count, using: &generator)]),
                "AnnualRevenue": .number(JSONNumber(Int64.random(in: 0..<10_000_000, using: &generator))),
                "BillingCity": .string("City \(Int.random(in: 0..<100, using: &generator))"),
                "Description": .string(String(repeating: "lorem ipsum ", count: 12)),
                "attributes": ["type": "Account"],
            ]
        }
        let contacts = (0..<count).map { index -> JSONValue in
            [
                "Id": .string("003" + loremID(index).dropFirst(3)),
                "AccountId": .string(loremID(Int.random(in: 0..<count, using: &generator))),
                "LastName": .string("Name \(UInt64.random(in: 0..<1_000_000, using: &generator))"),
                "attributes": ["type": "Contact"],
            ]
        }
        return SmartSQLRecords(
            accounts: accounts, contacts: contacts, accountIDs: (0..<count).map(loremID),
            industries: loremIndustries, cities: (0..<100).map { "City \($0)" })
    }

    // MARK: - Org

    /// Accounts and Contacts from ``OrgRecords``, as the REST API returns them; each contact's
    /// lookup moved onto an account of the soup, since the generator points lookups at the first
    /// 25,000 accounts of a larger org.
    private static func org(count: Int) -> SmartSQLRecords {
        var generator = SplitMix64(seed: seed)
        let accounts = (0..<count).map { OrgRecords.record(OrgRecords.accountIndex($0), using: &generator) }
        let accountIDs = accounts.map { account -> String in
            guard let id = account["Id"]?.string else { preconditionFailure("every org record has an Id") }
            return id
        }
        let contacts = (0..<count).map { number -> JSONValue in
            let contact = OrgRecords.record(OrgRecords.contactIndex(number), using: &generator)
            // Contacts without an account (a null lookup, as in orgs) keep none.
            guard case .object(var fields) = contact, fields["AccountId"]?.string != nil else { return contact }
            fields["AccountId"] = .string(accountIDs[Int.random(in: 0..<count, using: &generator)])
            return .object(fields)
        }
        return SmartSQLRecords(
            accounts: accounts, contacts: contacts, accountIDs: accountIDs,
            industries: distinctStrings(accounts, "Industry"), cities: distinctStrings(accounts, "BillingCity"))
    }

    /// The distinct string values of `path` among `records`, sorted so the arguments' order is
    /// the same in every run.
    private static func distinctStrings(_ records: [JSONValue], _ path: String) -> [String] {
        Set(records.compactMap { $0[path]?.string }).sorted()
    }
}
