import Determinism
import LosslessJSON

/// The values an org's records are made of — names, places, picklists, words — and the seeded
/// choices among them that ``OrgRecords`` builds its records from.
enum OrgValues {
    /// Record creation times: 2019-01-01 to 2024-06-01, UTC.
    static let createdRangeSeconds: Range<Int64> = 1_546_300_800..<1_717_200_000
    /// The org's users: owners, creators and modifiers are drawn from this many.
    static let userCount = 40
    /// Accounts that lookups (`AccountId`, `ParentId`) point at, drawn from the first this many.
    static let accountCount = 25_000

    // MARK: - Choices

    /// One of `values`.
    static func pick(_ values: [String], using generator: inout SplitMix64) -> String {
        values[Int.random(in: 0..<values.count, using: &generator)]
    }

    /// One of `values` as a JSON string, or null with probability `nullShare`.
    static func picklist(_ values: [String], nullShare: Double = 0, using generator: inout SplitMix64) -> JSONValue {
        sometimes(1 - nullShare, using: &generator) { .string(pick(values, using: &$0)) }
    }

    /// `make`'s value with probability `share`, null otherwise.
    static func sometimes(
        _ share: Double, using generator: inout SplitMix64, _ make: (inout SplitMix64) -> JSONValue
    ) -> JSONValue {
        Double.random(in: 0..<1, using: &generator) < share ? make(&generator) : .null
    }

    /// A user's id (`005…`).
    static func userID(using generator: inout SplitMix64) -> String {
        OrgRecords.salesforceID(prefix: "005", number: Int.random(in: 0..<userCount, using: &generator))
    }

    /// An Account's id, as a lookup holds it: one of the first ``accountCount`` Accounts.
    static func accountID(using generator: inout SplitMix64) -> String {
        OrgRecords.id(OrgRecords.accountIndex(Int.random(in: 0..<accountCount, using: &generator)))
    }

    /// Another object's id with `prefix`, as a lookup holds it.
    static func lookupID(_ prefix: String, using generator: inout SplitMix64) -> String {
        OrgRecords.salesforceID(prefix: prefix, number: Int.random(in: 0..<1_000_000, using: &generator))
    }

    /// A company name: `Hartley Logistics Inc.`, `Blue Harbor Group`.
    static func company(using generator: inout SplitMix64) -> String {
        let first =
            Bool.random(using: &generator) ? pick(lastNames, using: &generator) : pick(companyWords, using: &generator)
        return "\(first) \(pick(companyNouns, using: &generator)) \(pick(companySuffixes, using: &generator))"
    }

    /// A North American phone number, as orgs type them.
    static func phone(using generator: inout SplitMix64) -> String {
        let area = Int.random(in: 201..<990, using: &generator)
        let line = Int.random(in: 0..<10_000, using: &generator)
        let padded = String(repeating: "0", count: 4 - String(line).count) + String(line)
        return "(\(area)) 555-\(padded)"
    }

    /// A street line, sometimes with a suite on a second line.
    static func street(using generator: inout SplitMix64) -> String {
        let number = Int.random(in: 1..<9999, using: &generator)
        let line = "\(number) \(pick(streetNames, using: &generator)) \(pick(streetTypes, using: &generator))"
        guard Double.random(in: 0..<1, using: &generator) < 0.25 else { return line }
        return line + "\nSuite \(Int.random(in: 100..<2000, using: &generator))"
    }

    /// A flat address with `prefix` (`Billing`, `Mailing`, …): street, city, state, postal code
    /// and country, as the REST API returns an address's parts, plus the empty geocode fields.
    static func address(_ prefix: String, using generator: inout SplitMix64) -> [String: JSONValue] {
        let place = cities[Int.random(in: 0..<cities.count, using: &generator)]
        let postal = place.postalPrefix * 100 + Int.random(in: 0..<100, using: &generator)
        return [
            "\(prefix)Street": .string(street(using: &generator)),
            "\(prefix)City": .string(place.city),
            "\(prefix)State": .string(place.state),
            "\(prefix)PostalCode": .string(String(repeating: "0", count: 5 - String(postal).count) + String(postal)),
            "\(prefix)Country": .string(pick(["USA", "United States", "US"], using: &generator)),
            "\(prefix)Latitude": .null,
            "\(prefix)Longitude": .null,
            "\(prefix)GeocodeAccuracy": .null,
        ]
    }

    /// The same address fields, all null: what an org leaves empty most often.
    static func emptyAddress(_ prefix: String) -> [String: JSONValue] {
        Dictionary(
            uniqueKeysWithValues: ["Street", "City", "State", "PostalCode", "Country", "Latitude", "Longitude"]
                .map { ("\(prefix)\($0)", JSONValue.null) } + [("\(prefix)GeocodeAccuracy", .null)])
    }

    /// A long text of `minimum` to `maximum` characters: sentences of words from ``words``.
    static func longText(_ minimum: Int, _ maximum: Int, using generator: inout SplitMix64) -> String {
        let target = Int.random(in: minimum...maximum, using: &generator)
        var text = ""
        while text.utf8.count < target {
            let length = Int.random(in: 6...18, using: &generator)
            var sentence = (0..<length).map { _ in pick(words, using: &generator) }.joined(separator: " ")
            sentence = sentence.prefix(1).uppercased() + sentence.dropFirst() + ". "
            text += sentence
        }
        return String(text.prefix(target)).trimmingSuffixSpaces()
    }

    /// A description on about one record in five, null on the rest.
    static func description(using generator: inout SplitMix64) -> JSONValue {
        sometimes(0.2, using: &generator) { .string(longText(300, 2000, using: &$0)) }
    }

    // MARK: - Dates

    /// A date-time as Salesforce's REST API writes it, `2024-03-01T12:34:56.000+0000`, from
    /// seconds since 1970 (UTC).
    ///
    /// `WallTime` owns Salesforce's wire format (STYLE.md, rule 26), so the records carry the
    /// very text the simulator and the sync engine write, and depend on no locale or time zone.
    static func dateTime(_ seconds: Int64) -> String {
        WallTime(millisecondsSinceEpoch: seconds * 1000).salesforceFormat
    }

    /// A date as Salesforce's REST API writes it, `2024-03-01`: the date part of ``dateTime(_:)``.
    static func date(_ seconds: Int64) -> String {
        String(dateTime(seconds).prefix(10))
    }
}

extension String {
    /// The string without trailing spaces.
    fileprivate func trimmingSuffixSpaces() -> String {
        var text = Substring(self)
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
