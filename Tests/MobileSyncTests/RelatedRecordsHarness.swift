import Determinism
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import SalesforceAPI
import SalesforceSimulator
import Soups
import SyncTesting
import Testing

/// A simulator with Accounts and their Contacts served on 127.0.0.1, a store with an
/// `accounts` and a `contacts` soup, and a sync manager: what the parent/children, briefcase,
/// layout and metadata tests start from. ``with(accounts:contactsPerAccount:_:)`` stops the
/// server, checks `journal.verify()` and removes the store.
struct RelatedRecordsHarness {
    static let accounts = "accounts"
    static let contacts = "contacts"

    let store: SyncStore
    let simulator: SalesforceSimulator
    let client: SalesforceClient
    let manager: SyncManager

    /// Runs `body` against `accounts` Accounts named `Account 0`, … each with
    /// `contactsPerAccount` Contacts named `Contact <account>-<n>`; every record's
    /// `LastModifiedDate` is one second after the one before, from 2023-01-01.
    static func with<T>(
        accounts: Int = 3, contactsPerAccount: Int = 2, extraData: [String: JSONValue] = [:],
        masterDetail: Bool = false, transport: ((any HTTPTransport) -> any HTTPTransport)? = nil,
        _ body: (RelatedRecordsHarness) async throws -> T
    ) async throws -> T {
        let directory = try TemporaryDirectory("related-e2e")
        defer { directory.remove() }
        var data = try data(accounts: accounts, contactsPerAccount: contactsPerAccount, extra: extraData)
        if masterDetail { data.schema = data.schema.withCascadeDelete(type: "Contact", field: "AccountId") }
        let simulator = try SalesforceSimulator(
            configuration: SalesforceSimulator.Configuration(data: data, seed: 42), sleepClock: ImmediateClock(),
            logger: .discarding)
        let server = try await SimulatorServer.start(simulator, logger: .discarding)
        do {
            let clock = ManualWallClock(WallTime(millisecondsSinceEpoch: 1_800_000_000_000), tick: .milliseconds(1))
            let store = try SyncStore(
                directory: directory.appending("store"), clock: clock, idGenerator: IncrementingIDGenerator(),
                logger: .discarding)
            try store.soups.registerSoup(
                Self.accounts,
                indexSpecs: [IndexSpec(path: "Id", type: .string), IndexSpec(path: "Name", type: .string)])
            try store.soups.registerSoup(
                Self.contacts,
                indexSpecs: [IndexSpec(path: "Id", type: .string), IndexSpec(path: "AccountId", type: .string)])
            let client = SalesforceClient(
                credentials: SalesforceCredentials(
                    instanceURL: server.url, accessToken: simulator.accessToken,
                    refreshToken: "simulator-refresh-token", clientID: "test-client"),
                transport: transport?(URLSessionTransport()) ?? URLSessionTransport(), clock: ImmediateClock(),
                randomSeed: 7, logger: .discarding)
            let manager = try SyncManager(store: store, client: client, clock: clock, logger: .discarding)
            let harness = RelatedRecordsHarness(store: store, simulator: simulator, client: client, manager: manager)
            let result = try await body(harness)
            let report = try store.journal.verify()
            #expect(report.isConsistent, "verify: \(report.divergences)")
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    static func accountId(_ number: Int) -> String {
        SyncHarness.accountId(number)
    }

    static func contactId(_ number: Int) -> String {
        SalesforceID(keyPrefix: "003", counter: UInt64(number + 1)).rawValue
    }

    /// Creates a parent locally with `children` children pointing at its local id.
    @discardableResult
    func createTreeLocally(_ name: String, children: Int, extra: [String: JSONValue] = [:]) throws -> (
        parent: JSONValue, children: [JSONValue]
    ) {
        var fields: [String: JSONValue] = ["attributes": ["type": "Account"], "Name": .string(name)]
        fields.merge(extra) { _, new in new }
        let parent = try store.soups.createLocally(Self.accounts, .object(fields))
        let created = try (0..<children).map { number in
            try store.soups.createLocally(
                Self.contacts,
                [
                    "attributes": ["type": "Contact"], "LastName": .string("\(name) child \(number)"),
                    "AccountId": parent["Id"] ?? .null,
                ])
        }
        return (parent, created)
    }

    /// The parent/children sync-up target over the two soups.
    static func parentChildrenUpTarget(
        _ type: ParentChildrenRelationship.RelationshipType, externalIds: Bool = false
    ) -> SyncUpTargetDescriptor {
        let extra = externalIds ? ["ExternalId__c"] : []
        return SyncUpTargetDescriptor(
            parentChildren: relationship(type, externalIds: externalIds), createFieldlist: ["Name"] + extra,
            updateFieldlist: ["Name"], childrenCreateFieldlist: ["LastName"] + extra,
            childrenUpdateFieldlist: ["LastName"])
    }

    /// The composite requests the simulator received, oldest first, as their sub-requests.
    func compositeRequests() throws -> [[JSONValue]] {
        try simulator.requestLog().compactMap { entry -> [JSONValue]? in
            guard entry["path"]?.string?.hasSuffix("/composite") == true, let body = entry["body"]?.string else {
                return nil
            }
            return try JSONValue(parsing: Array(body.utf8))["compositeRequest"]?.array
        }
    }

    /// The data file's JSON: Accounts, then Contacts; `extra` adds top-level members.
    static func data(accounts: Int, contactsPerAccount: Int, extra: [String: JSONValue]) throws -> SimulatorData {
        var date = WallTime(millisecondsSinceEpoch: 1_672_531_200_000)
        // Each record's modification dates: the next second, in both date fields as on a real org.
        func dated(_ fields: [String: JSONValue]) -> JSONValue {
            defer { date = WallTime(millisecondsSinceEpoch: date.millisecondsSinceEpoch + 1000) }
            var fields = fields
            fields["LastModifiedDate"] = .string(date.salesforceFormat)
            fields["SystemModstamp"] = .string(date.salesforceFormat)
            return .object(fields)
        }
        var accountRecords: [JSONValue] = []
        var contactRecords: [JSONValue] = []
        for account in 0..<accounts {
            accountRecords.append(dated(["Id": .string(accountId(account)), "Name": .string("Account \(account)")]))
        }
        for account in 0..<accounts {
            for child in 0..<contactsPerAccount {
                contactRecords.append(
                    dated([
                        "Id": .string(contactId(account * contactsPerAccount + child)),
                        "LastName": .string("Contact \(account)-\(child)"), "AccountId": .string(accountId(account)),
                    ]))
            }
        }
        var json: [String: JSONValue] = [
            "records": ["Account": .array(accountRecords), "Contact": .array(contactRecords)]
        ]
        json.merge(extra) { _, new in new }
        return try SimulatorData(json: .object(json))
    }

    /// Every record of `soup`, by `_soupEntryId`.
    func records(_ soup: String) throws -> [JSONValue] {
        try store.soups.query(QuerySpec.all(soup, orderPath: "_soupEntryId", pageSize: 100_000))
    }

    /// The records of `soup` keyed by `Id`.
    func byId(_ soup: String) throws -> [String: JSONValue] {
        var byId: [String: JSONValue] = [:]
        for record in try records(soup) { if let id = record["Id"]?.string { byId[id] = record } }
        return byId
    }

    /// The `_soupEntryId` of the record of `soup` whose `Id` is `id`.
    func entryId(_ soup: String, _ id: String) throws -> Int64 {
        try #require(try store.soups.lookupSoupEntryId(soup, path: "Id", value: .string(id)))
    }

    /// The SOQL texts of the query requests the simulator received, oldest first.
    func soqlSent() -> [String] {
        simulator.requestLog().compactMap { entry -> String? in
            guard let path = entry["path"]?.string, path.hasSuffix("/query"), let query = entry["query"]?.string
            else { return nil }
            var components = URLComponents()
            components.percentEncodedQuery = query.replacing("+", with: "%20")
            return components.queryItems?.first { $0.name == "q" }?.value
        }
    }

    /// The parent/children target over the two soups.
    static func parentChildrenTarget(
        type: ParentChildrenRelationship.RelationshipType = .masterDetail, filter: String = ""
    ) throws -> SyncDownTargetDescriptor {
        try SyncDownTargetDescriptor(
            .parentChildren(
                relationship(type), parentFieldlist: ["Id", "Name", "LastModifiedDate"],
                childrenFieldlist: ["Id", "LastName", "AccountId", "LastModifiedDate"], parentSoqlFilter: filter))
    }

    static func relationship(
        _ type: ParentChildrenRelationship.RelationshipType, externalIds: Bool = false
    ) -> ParentChildrenRelationship {
        ParentChildrenRelationship(
            parent: .init(
                sobjectType: "Account", soupName: accounts, externalIdFieldName: externalIds ? "ExternalId__c" : nil),
            children: .init(
                sobjectType: "Contact", sobjectTypePlural: "Contacts", soupName: contacts,
                parentIdFieldName: "AccountId", externalIdFieldName: externalIds ? "ExternalId__c" : nil),
            relationshipType: type)
    }
}

extension Journal {
    /// Every entry of `kind`, oldest first.
    func entries(of kind: JournalEntry.Kind) throws -> [JournalEntry] {
        try read { reader in
            var entries: [JournalEntry] = []
            let last = try reader.lastSequence
            guard last > 0 else { return entries }
            try reader.forEachEntry(in: 1...last) { entry in
                if entry.kind == kind { entries.append(entry) }
                return true
            }
            return entries
        }
    }
}
