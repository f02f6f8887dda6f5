import Determinism
import LosslessJSON
import SalesforceAPI
public import SalesforceSimulator

/// A scenario that can be recorded into `Journals/<area>/<name>/`: the org the simulator
/// starts with and the script the app runs against it.
///
/// Cases are defined in Swift (``SessionCatalog``) so that recording can regenerate them; a
/// replay reads only the files.
public struct SessionCase: Sendable {
    /// The folder under `Journals/`, such as `sync-down`.
    public var area: String
    /// The case's folder name, such as `paging`.
    public var name: String
    /// One sentence saying what the session shows.
    public var summary: String
    /// The Accounts the simulator starts with (field name → value).
    public var accounts: [[String: String]]
    /// The Contacts the simulator starts with, loaded after the Accounts.
    public var contacts: [[String: String]]
    /// The briefcases the simulator primes records from, and its priming page size.
    public var briefcases: [Briefcase]
    /// See ``briefcases``.
    public var primingPageSize: Int
    /// What the app does.
    public var script: SessionScript

    /// The seed of the simulator (tokens, faults drawn by rate).
    public static let simulatorSeed: UInt64 = 42
    /// Where initial modification dates start: 2023-01-01T00:00:00Z, one second apart. The
    /// simulator's logical clock starts at the newest of them, as if the org had just been
    /// loaded: its own writes are later, and a first sync reads the org within the newest
    /// record's second, so the next reSync asks for that second again (decision 0325).
    static let firstModifiedMilliseconds: Int64 = 1_672_531_200_000

    /// Creates a case.
    public init(
        area: String, name: String, summary: String, accounts: [[String: String]], contacts: [[String: String]] = [],
        briefcases: [Briefcase] = [], primingPageSize: Int = SimulatorData.primingPageSizeDefault,
        script: SessionScript
    ) {
        self.area = area
        self.name = name
        self.summary = summary
        self.accounts = accounts
        self.contacts = contacts
        self.briefcases = briefcases
        self.primingPageSize = primingPageSize
        self.script = script
    }

    /// `area/name`: the case's directory relative to `Journals/`.
    public var path: String {
        "\(area)/\(name)"
    }

    /// A simulator holding the case's org, with the tokens the session's client uses.
    func makeSimulator() throws -> SalesforceSimulator {
        let records =
            accounts.map { (type: "Account", fields: $0.mapValues(JSONValue.string)) }
            + contacts.map { (type: "Contact", fields: $0.mapValues(JSONValue.string)) }
        let data = SimulatorData(records: records, briefcases: briefcases, primingPageSize: primingPageSize)
        let newest = records.compactMap { $0.fields["LastModifiedDate"]?.string.flatMap(WallTime.init(iso8601:)) }
            .max { $0.millisecondsSinceEpoch < $1.millisecondsSinceEpoch }
        return try SalesforceSimulator(
            configuration: SalesforceSimulator.Configuration(
                data: data, accessToken: SessionRunner.accessToken,
                refreshToken: SessionRunner.refreshToken, seed: Self.simulatorSeed,
                clock: .logical(start: newest ?? SalesforceSimulator.Configuration.logicalStartDefault)),
            sleepClock: ImmediateClock(), logger: .discarding)
    }

    /// The id of the `number`th initial Contact (from 0), as the simulator mints it.
    public static func contactId(_ number: Int) -> String {
        SalesforceID(keyPrefix: "003", counter: UInt64(number + 1)).rawValue
    }

    /// `perAccount` Contacts for each of the first `accountCount` Accounts, named
    /// `Contact <account>-<n>`, with modification dates after the Accounts'.
    public static func contacts(perAccount: Int, accountCount: Int) -> [[String: String]] {
        (0..<accountCount * perAccount).map { number in
            let account = number / perAccount
            let date = firstModifiedMilliseconds + Int64(accountCount + number) * 1000
            return [
                "Id": contactId(number), "LastName": "Contact \(account)-\(number % perAccount)",
                "AccountId": accountId(account),
                "LastModifiedDate": WallTime(millisecondsSinceEpoch: date).salesforceFormat,
                "SystemModstamp": WallTime(millisecondsSinceEpoch: date).salesforceFormat,
            ]
        }
    }

    /// The id of the `number`th initial Account (from 0), as the simulator mints it.
    public static func accountId(_ number: Int) -> String {
        SalesforceID(keyPrefix: "001", counter: UInt64(number + 1)).rawValue
    }

    /// The `LastModifiedDate` of the `number`th initial Account (from 0), in Salesforce's format.
    public static func modifiedDate(_ number: Int) -> String {
        WallTime(millisecondsSinceEpoch: firstModifiedMilliseconds + Int64(number) * 1000).salesforceFormat
    }

    /// `count` Accounts named `Account 000`, `Account 001`, … with ids from ``accountId(_:)``
    /// and modification dates one second apart; `extra` adds fields to some of them.
    public static func accounts(_ count: Int, extra: [Int: [String: String]] = [:]) -> [[String: String]] {
        (0..<count).map { number in
            var fields = [
                "Id": accountId(number), "Name": "Account " + String(String(number + 1000).dropFirst()),
                "LastModifiedDate": modifiedDate(number),
            ]
            fields.merge(extra[number] ?? [:]) { _, new in new }
            return fields
        }
    }
}
