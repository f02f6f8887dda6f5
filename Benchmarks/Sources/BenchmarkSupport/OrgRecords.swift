public import Determinism
public import LosslessJSON

/// Records shaped like an org's, generated from a seed: Accounts, Contacts, Opportunities and
/// Cases as Salesforce's REST API returns them, so a storage or codec figure measured on them says
/// what a real org's records cost (issue 48).
///
/// Every record has the fields a query of all fields returns: `attributes` with `type` and `url`,
/// an 18-character `Id`, owner and audit lookups, `CreatedDate`, `LastModifiedDate` and
/// `SystemModstamp`; then its object's fields (20 to 60 in all): picklists, person and company
/// names, flat street addresses (`BillingStreet`, `BillingCity`, …), phones, emails, websites,
/// dates, currency and numbers, and nulls where an org leaves fields empty. About one record in
/// five has a `Description` of a few hundred to ~2,000 characters of varied words.
///
/// The soup benchmark indexes `Id`, `Name`, `AnnualRevenue` (an integer) and `Rating` (a floating
/// number) on every record of either shape. Accounts have all four of their own; on the other
/// objects `AnnualRevenue` and `Rating` stand for the parent account's figures denormalised onto
/// the record (as an org's formula fields often do), and a Case's `Name` is its case number.
public enum OrgRecords {
    /// The standard objects generated, each with its share of the records and its id prefix.
    enum ObjectType: CaseIterable {
        case account
        case contact
        case opportunity
        case supportCase

        /// The sObject name, as `attributes.type` carries it.
        var name: String {
            switch self {
            case .account: "Account"
            case .contact: "Contact"
            case .opportunity: "Opportunity"
            case .supportCase: "Case"
            }
        }

        /// The key prefix of the object's ids.
        var keyPrefix: String {
            switch self {
            case .account: "001"
            case .contact: "003"
            case .opportunity: "006"
            case .supportCase: "500"
            }
        }
    }

    /// How many of every 20 consecutive records are Accounts, Contacts, Opportunities and Cases:
    /// 25 %, 35 %, 25 % and 15 %. Derived from the index alone, so ``id(_:)`` needs no generator.
    static let accountsPerCycle = 5
    static let contactsPerCycle = 7
    static let opportunitiesPerCycle = 5
    static let cycleLength = 20

    /// The object of the record at `index`.
    static func objectType(_ index: Int) -> ObjectType {
        let slot = index % cycleLength
        if slot < accountsPerCycle { return .account }
        if slot < accountsPerCycle + contactsPerCycle { return .contact }
        if slot < accountsPerCycle + contactsPerCycle + opportunitiesPerCycle { return .opportunity }
        return .supportCase
    }

    /// The index of the `number`th Account (counting from 0): the record at that index is an
    /// Account, so a benchmark that needs Accounts alone asks ``record(_:using:)`` for these.
    public static func accountIndex(_ number: Int) -> Int {
        number / accountsPerCycle * cycleLength + number % accountsPerCycle
    }

    /// The index of the `number`th Contact (counting from 0), as ``accountIndex(_:)`` for Accounts.
    public static func contactIndex(_ number: Int) -> Int {
        number / contactsPerCycle * cycleLength + accountsPerCycle + number % contactsPerCycle
    }

    /// The record at `index`; `generator` supplies every value not derived from the index.
    public static func record(_ index: Int, using generator: inout SplitMix64) -> JSONValue {
        let type = objectType(index)
        let id = id(index)
        var fields = commonFields(type, id: id, using: &generator)
        let specific: [String: JSONValue]
        switch type {
        case .account: specific = accountFields(using: &generator)
        case .contact: specific = contactFields(using: &generator)
        case .opportunity: specific = opportunityFields(using: &generator)
        case .supportCase: specific = caseFields(index, using: &generator)
        }
        fields.merge(specific) { _, new in new }
        return .object(fields)
    }

    /// The `Id` of the record at `index`: its object's key prefix, then a unique body, then the
    /// three-character case-safe suffix Salesforce computes from the 15-character id.
    public static func id(_ index: Int) -> String {
        salesforceID(prefix: objectType(index).keyPrefix, number: index)
    }

    /// An 18-character id: `prefix`, a pod-like `Hs0000`, `number` in six base-62 digits, and the
    /// case-safe suffix.
    static func salesforceID(prefix: String, number: Int) -> String {
        precondition(number >= 0, "ids are generated for non-negative numbers")
        let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        var body = ""
        var rest = number
        for _ in 0..<6 {
            body = String(digits[rest % 62]) + body
            rest /= 62
        }
        precondition(rest == 0, "six base-62 digits hold every benchmark index")
        let short = prefix + "Hs0000" + body
        return short + caseSafeSuffix(short)
    }

    /// The suffix that makes a 15-character id unique without regard to case: for each block of
    /// five characters, a letter or digit whose value has bit `i` set when character `i` is upper case.
    static func caseSafeSuffix(_ id: String) -> String {
        let characters = Array(id)
        precondition(characters.count == 15, "the suffix is computed from a 15-character id")
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ012345")
        var suffix = ""
        for block in 0..<3 {
            var value = 0
            for position in 0..<5 where characters[block * 5 + position].isUppercase {
                value |= 1 << position
            }
            suffix.append(alphabet[value])
        }
        return suffix
    }

    /// What every object's record has: attributes, ids, audit fields and the four indexed paths.
    private static func commonFields(
        _ type: ObjectType, id: String, using generator: inout SplitMix64
    ) -> [String: JSONValue] {
        let created = Int64.random(in: OrgValues.createdRangeSeconds, using: &generator)
        let modified = created + Int64.random(in: 0..<400 * 86_400, using: &generator)
        let modstamp = modified + Int64.random(in: 0..<60, using: &generator)
        let creator = OrgValues.userID(using: &generator)
        return [
            "attributes": [
                "type": .string(type.name), "url": .string("/services/data/v66.0/sobjects/\(type.name)/\(id)"),
            ],
            "Id": .string(id),
            "IsDeleted": false,
            "OwnerId": .string(OrgValues.userID(using: &generator)),
            "CreatedById": .string(creator),
            "LastModifiedById": .string(
                Bool.random(using: &generator) ? creator : OrgValues.userID(using: &generator)),
            "CreatedDate": .string(OrgValues.dateTime(created)),
            "LastModifiedDate": .string(OrgValues.dateTime(modified)),
            "SystemModstamp": .string(OrgValues.dateTime(modstamp)),
            "LastActivityDate": OrgValues.sometimes(0.5, using: &generator) {
                .string(OrgValues.date(modified - Int64.random(in: 0..<90 * 86_400, using: &$0)))
            },
            "LastViewedDate": OrgValues.sometimes(0.3, using: &generator) { _ in
                .string(OrgValues.dateTime(modstamp))
            },
            "LastReferencedDate": OrgValues.sometimes(0.3, using: &generator) { _ in
                .string(OrgValues.dateTime(modstamp))
            },
            // The soup benchmark's integer and floating indexes, in the lorem records' ranges so
            // the range probes land alike.
            "AnnualRevenue": .number(JSONNumber(Int64.random(in: 0..<10_000_000, using: &generator))),
            "Rating": .number(JSONNumber(Double(Int.random(in: 0..<5000, using: &generator)) / 1000)),
        ]
    }
}
