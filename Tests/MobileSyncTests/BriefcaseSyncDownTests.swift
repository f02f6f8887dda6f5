import Determinism
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import SalesforceAPI
import SalesforceSimulator
import Soups
import Testing

/// Briefcase sync down against the simulator's priming records: records of each type in their
/// soup, relay paging, reSync by `changedAfterTimestamp`, merge modes and ghost cleaning.
@Suite struct BriefcaseSyncDownTests {
    typealias Harness = RelatedRecordsHarness

    /// A briefcase priming every Account, the Contacts of Account 0 and 1, and the user; three
    /// ids per priming page.
    static let briefcase: [String: JSONValue] = [
        "briefcases": [
            [
                "name": "Field sales",
                "rules": [
                    ["objectType": "Account"],
                    ["objectType": "Contact", "filter": "LastName like 'Contact 0%' or LastName like 'Contact 1%'"],
                    ["objectType": "User"],
                ],
            ]
        ],
        "primingPageSize": 3,
    ]

    static func target(countIdsPerRetrieve: Int = 2000) throws -> SyncDownTargetDescriptor {
        try SyncDownTargetDescriptor(
            .briefcase(
                infos: [
                    BriefcaseObjectInfo(sobjectType: "Account", fieldlist: ["Name"], soupName: Harness.accounts),
                    BriefcaseObjectInfo(
                        sobjectType: "Contact", fieldlist: ["LastName", "AccountId"], soupName: Harness.contacts),
                ], countIdsPerRetrieve: countIdsPerRetrieve))
    }

    /// The paths and query strings of the requests the simulator received, oldest first.
    static func requests(_ harness: Harness) -> [String] {
        harness.simulator.requestLog().map { entry in
            let path = (entry["path"]?.string ?? "").replacing("/services/data/v66.0", with: "")
            let query = entry["query"]?.string ?? ""
            return (entry["method"]?.string ?? "") + " " + path + (query.isEmpty ? "" : "?" + query)
        }
    }

    @Test func aFirstSyncFetchesEachPrimedTypeIntoItsSoupFollowingRelayTokens() async throws {
        try await Harness.with(accounts: 3, contactsPerAccount: 2, extraData: Self.briefcase) { harness in
            let reports = Recorder<SyncState>()
            let final = try await harness.manager.syncDown(
                target: try Self.target(), soupName: "does-not-matter", name: "briefcase",
                onUpdate: { reports.append($0) })
            #expect(final.status == .done, "\(final.error)")
            // Three Accounts, four Contacts and the user are primed; the user has no info.
            #expect(reports.all.first { $0.totalSize > 0 }?.totalSize == 8)
            #expect(Set(try harness.byId(Harness.accounts).keys) == Set((0..<3).map(Harness.accountId)))
            #expect(Set(try harness.byId(Harness.contacts).keys) == Set((0..<4).map(Harness.contactId)))
            let contact = try #require(try harness.byId(Harness.contacts)[Harness.contactId(0)])
            #expect(contact["AccountId"] == .string(Harness.accountId(0)))
            #expect(contact["__sync_id__"] == .number(JSONNumber(final.id)))
            #expect(
                Self.requests(harness) == [
                    "GET /connect/briefcase/priming-records", "POST /composite/sobjects/Account",
                    "GET /connect/briefcase/priming-records?relayToken=relay-1", "POST /composite/sobjects/Contact",
                    "GET /connect/briefcase/priming-records?relayToken=relay-2", "POST /composite/sobjects/Contact",
                ])
            // The retrieve asks for the id and date fields too, which the watermark needs.
            let retrieve = try #require(
                harness.simulator.requestLog().first { $0["path"]?.string?.hasSuffix("/Contact") == true })
            let body = try JSONValue(parsing: Array((retrieve["body"]?.string ?? "").utf8))
            #expect(body["fields"] == ["LastName", "AccountId", "Id", "LastModifiedDate"])
            let newest = try #require(WallTime(iso8601: contact["LastModifiedDate"]?.string ?? ""))
            #expect(final.maxTimeStamp >= newest.millisecondsSinceEpoch)
            #expect(
                try harness.store.journal.entries(of: .syncDownPageFetched).map { $0.header["soup"] } == [
                    .string(Harness.accounts), .string(Harness.contacts), .string(Harness.contacts),
                ])
        }
    }

    @Test func slicesOfIdsAreRetrievedSeparately() async throws {
        try await Harness.with(accounts: 3, contactsPerAccount: 0, extraData: Self.briefcase) { harness in
            _ = try await harness.manager.syncDown(
                target: try Self.target(countIdsPerRetrieve: 2), soupName: Harness.accounts)
            #expect(Self.requests(harness).filter { $0.hasPrefix("POST") }.count == 2)
            #expect(try harness.records(Harness.accounts).count == 3)
        }
    }

    @Test func reSyncSendsTheWatermarkAndFetchesOnlyWhatChanged() async throws {
        try await Harness.with(accounts: 3, contactsPerAccount: 2, extraData: Self.briefcase) { harness in
            let first = try await harness.manager.syncDown(
                target: try Self.target(), soupName: Harness.accounts, name: "briefcase")
            try harness.simulator.write(type: "Account", id: Harness.accountId(1), fields: ["Name": "Renamed"])
            let before = Self.requests(harness).count
            let again = try await harness.manager.reSync(name: "briefcase")
            // The renamed Account and the user (loaded after the records' dates) are primed, and
            // the newest Contact again: the window opens at the start of the watermark's second,
            // and the exclusive `changedAfterTimestamp` is sent 1 ms before it (decision 0321).
            // The user has no info and is not fetched; the Contact, unchanged, is not counted as
            // changed. totalSize is the priming count, as in Mobile SDK.
            #expect(again.progressSummary == "DONE(100,3)")
            #expect(again.fetchedCount == 2)
            #expect(again.changedCount == 1)
            #expect(again.maxTimeStamp > first.maxTimeStamp)
            let windowStart = first.maxTimeStamp - first.maxTimeStamp % 1000
            let timestamp = WallTime(millisecondsSinceEpoch: windowStart - 1).primingTimestamp
            let encoded = timestamp.replacing(":", with: "%3A")
            #expect(
                Array(Self.requests(harness).dropFirst(before)) == [
                    "GET /connect/briefcase/priming-records?changedAfterTimestamp=\(encoded)",
                    "POST /composite/sobjects/Account", "POST /composite/sobjects/Contact",
                ])
            #expect(try harness.byId(Harness.accounts)[Harness.accountId(1)]?["Name"] == "Renamed")
        }
    }

    @Test func leaveIfChangedKeepsALocalEditAndOverwriteDoesNot() async throws {
        for mode in [MergeMode.leaveIfChanged, .overwrite] {
            try await Harness.with(accounts: 2, contactsPerAccount: 0, extraData: Self.briefcase) { harness in
                _ = try await harness.manager.syncDown(
                    target: try Self.target(), options: SyncOptions(mergeMode: mode), soupName: Harness.accounts,
                    name: "briefcase")
                try harness.store.soups.updateLocally(
                    Harness.accounts, entryId: try harness.entryId(Harness.accounts, Harness.accountId(0)),
                    changes: ["Name": "Mine"])
                try harness.simulator.write(type: "Account", id: Harness.accountId(0), fields: ["Name": "Theirs"])
                _ = try await harness.manager.reSync(name: "briefcase")
                let name = try harness.byId(Harness.accounts)[Harness.accountId(0)]?["Name"]
                #expect(name == (mode == .leaveIfChanged ? "Mine" : "Theirs"), "\(mode)")
            }
        }
    }

    @Test func ghostCleaningRemovesRecordsNoLongerPrimedInEverySoupButNoDirtyOne() async throws {
        try await Harness.with(accounts: 3, contactsPerAccount: 2, extraData: Self.briefcase) { harness in
            _ = try await harness.manager.syncDown(
                target: try Self.target(), soupName: Harness.accounts, name: "briefcase")
            try harness.simulator.delete(type: "Account", id: Harness.accountId(2))
            try harness.simulator.delete(type: "Account", id: Harness.accountId(1))
            try harness.simulator.delete(type: "Contact", id: Harness.contactId(3))
            try harness.store.soups.updateLocally(
                Harness.accounts, entryId: try harness.entryId(Harness.accounts, Harness.accountId(1)),
                changes: ["Name": "Mine"])
            let deleted = try await harness.manager.cleanResyncGhosts(name: "briefcase")
            #expect(deleted == 2)
            #expect(Set(try harness.byId(Harness.accounts).keys) == [Harness.accountId(0), Harness.accountId(1)])
            #expect(Set(try harness.byId(Harness.contacts).keys) == Set((0..<3).map(Harness.contactId)))
        }
    }

    @Test func ghostCleaningRefusesIdsThatARuleErrorLeftIncomplete() async throws {
        var broken = Self.briefcase
        broken["briefcases"] = [
            ["name": "Broken", "rules": [["objectType": "Account"], ["objectType": "Contact", "filter": "Nope = 1"]]]
        ]
        try await Harness.with(accounts: 2, contactsPerAccount: 1, extraData: broken) { harness in
            let final = try await harness.manager.syncDown(
                target: try Self.target(), soupName: Harness.accounts, name: "briefcase")
            #expect(final.status == .done, "\(final.error)")
            #expect(try harness.records(Harness.accounts).count == 2)
            await #expect {
                try await harness.manager.cleanResyncGhosts(name: "briefcase")
            } throws: { ($0 as? SyncError)?.code == .incompleteRemoteIds }
            #expect(try harness.records(Harness.accounts).count == 2)
        }
    }
}
