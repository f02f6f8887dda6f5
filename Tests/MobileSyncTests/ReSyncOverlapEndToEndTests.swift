import Determinism
import EventJournal
import LosslessJSON
import MobileSync
import SalesforceSimulator
import Soups
import SyncTesting
import Testing

/// reSync against the simulator when changes share the watermark's second or are committed with
/// an earlier date (a long transaction): issue 17, decision 0321.
@Suite struct ReSyncOverlapEndToEndTests {
    static func soqlTarget(overlapSeconds: Int = 0) throws -> SyncDownTargetDescriptor {
        try SyncDownTargetDescriptor(.soql(query: "SELECT Name FROM Account"), reSyncOverlapSeconds: overlapSeconds)
    }

    static func time(_ milliseconds: Int64) -> WallTime {
        WallTime(millisecondsSinceEpoch: milliseconds)
    }

    @Test(arguments: [MergeMode.overwrite, .leaveIfChanged])
    func editsInTheWatermarksSecondArriveOnTheNextReSync(mode: MergeMode) async throws {
        try await SyncHarness.with(accounts: 5) { harness in
            let first = try await harness.manager.syncDown(
                target: Self.soqlTarget(), options: SyncOptions(mergeMode: mode), soupName: SyncHarness.soup,
                name: "inc")
            let watermark = SyncHarness.modified(4)
            #expect(first.maxTimeStamp == watermark)
            // Another user saves two records in the watermark's second, after the sync read it:
            // one that had an older date, and the newest record itself, edited a second time.
            for (number, name) in [(1, "Edited in the same second"), (4, "Edited again in the same second")] {
                try harness.simulator.write(
                    type: "Account", id: SyncHarness.accountId(number), fields: ["Name": .string(name)],
                    modifiedAt: Self.time(watermark))
            }
            let reports = Recorder<SyncState>()
            let final = try await harness.manager.reSync(name: "inc", onUpdate: { reports.append($0) })
            let byId = try harness.recordsById()
            #expect(byId[SyncHarness.accountId(1)]?["Name"] == "Edited in the same second")
            #expect(byId[SyncHarness.accountId(4)]?["Name"] == "Edited again in the same second")
            #expect(reports.all.map(\.progressSummary) == ["RUNNING(0,-1)", "RUNNING(0,2)", "DONE(100,2)"])
            #expect(final.changedCount == 2)
            #expect(final.maxTimeStamp == watermark, "the watermark neither moves back nor past what was fetched")
            // Nothing changed since: the next reSync fetches the watermark's second again; its
            // totalSize is the server's count, as in Mobile SDK, and nothing counts as changed.
            let idle = try await harness.manager.reSync(name: "inc")
            #expect(idle.progressSummary == "DONE(100,2)")
            #expect(idle.fetchedCount == 2)
            #expect(idle.changedCount == 0)
            #expect(idle.maxTimeStamp == watermark)
            #expect(try harness.records().count == 5)
        }
    }

    @Test func aLongTransactionDatedBeforeTheWatermarkArrivesWithinTheOverlap() async throws {
        try await SyncHarness.with(accounts: 5) { harness in
            let first = try await harness.manager.syncDown(
                target: Self.soqlTarget(overlapSeconds: 10), soupName: SyncHarness.soup, name: "overlap")
            #expect(first.target.json["reSyncOverlapSeconds"] == 10)
            #expect(try harness.store.syncState(named: "overlap")?.target.json["reSyncOverlapSeconds"] == 10)
            let watermark = first.maxTimeStamp
            // Started 8 s before the newest record the sync saw, committed after the sync.
            try harness.simulator.write(
                type: "Account", id: SyncHarness.accountId(0), fields: ["Name": "Long transaction"],
                modifiedAt: Self.time(watermark - 8_000))
            // Started 20 s before: longer than the overlap the app chose, so not fetched.
            try harness.simulator.write(
                type: "Account", id: SyncHarness.accountId(2), fields: ["Name": "Longer than the overlap"],
                modifiedAt: Self.time(watermark - 20_000))
            let final = try await harness.manager.reSync(name: "overlap")
            let since = Self.time(watermark - 10_000).salesforceFormat
            #expect(harness.soqlSent().last?.contains("where LastModifiedDate >= \(since) order by") == true)
            // The server's count of the window: the long transaction and records 2 to 4.
            #expect(final.progressSummary == "DONE(100,4)")
            #expect(final.changedCount == 1)
            let byId = try harness.recordsById()
            #expect(byId[SyncHarness.accountId(0)]?["Name"] == "Long transaction")
            #expect(byId[SyncHarness.accountId(2)]?["Name"] == "Account 002")
            let page = try harness.store.journal.read { reader in
                try reader.entries(in: 1...(try reader.lastSequence)).last { $0.kind == .syncDownPageFetched }
            }
            #expect(page?.header["reSyncOverlapSeconds"] == .integer(10))
            #expect(page?.header["modifiedSince"] == .integer(watermark - 10_000))
        }
    }

    @Test(arguments: [MergeMode.overwrite, .leaveIfChanged])
    func aDirtyRecordFetchedAgainUnchangedKeepsItsEdit(mode: MergeMode) async throws {
        try await SyncHarness.with(accounts: 5) { harness in
            try await harness.manager.syncDown(
                target: Self.soqlTarget(overlapSeconds: 2), options: SyncOptions(mergeMode: mode),
                soupName: SyncHarness.soup, name: "dirty")
            // Records 2, 3 and 4 are in the window of every reSync; edit two of them locally.
            for number in [3, 4] {
                try harness.store.soups.updateLocally(
                    SyncHarness.soup, entryId: harness.entryId(of: SyncHarness.accountId(number)),
                    changes: ["Name": .string("Mine \(number)")])
            }
            let reports = Recorder<SyncState>()
            let final = try await harness.manager.reSync(name: "dirty", onUpdate: { reports.append($0) })
            #expect(reports.all.map(\.progressSummary) == ["RUNNING(0,-1)", "RUNNING(0,3)", "DONE(100,3)"])
            #expect(final.changedCount == 0)
            #expect(final.maxTimeStamp == SyncHarness.modified(4))
            let byId = try harness.recordsById()
            for number in [3, 4] {
                #expect(byId[SyncHarness.accountId(number)]?["Name"] == .string("Mine \(number)"))
                #expect(byId[SyncHarness.accountId(number)]?["__local__"] == true)
            }
            #expect(try harness.store.soups.dirtyRecords(SyncHarness.soup).count == 2)
        }
    }

    /// Refresh asks each slice from the latest local date of that slice: inclusive as well.
    @Test func aRefreshReSyncFetchesAnEditMadeInTheSecondOfItsSlicesNewestCopy() async throws {
        try await SyncHarness.with(accounts: 4) { harness in
            try await harness.manager.syncDown(target: Self.soqlTarget(), soupName: SyncHarness.soup, name: "seed")
            let target = try SyncDownTargetDescriptor(
                .refresh(sobjectType: "Account", fieldlist: ["Name"], soupName: SyncHarness.soup, countIdsPerSoql: 2))
            let first = try await harness.manager.syncDown(target: target, soupName: SyncHarness.soup, name: "refresh")
            #expect(first.target.json["reSyncOverlapSeconds"] == nil, "0 is not written")
            // The second slice's newest local copy is record 3; record 2 is saved again in its second.
            try harness.simulator.write(
                type: "Account", id: SyncHarness.accountId(2), fields: ["Name": "Same second"],
                modifiedAt: Self.time(SyncHarness.modified(3)))
            let final = try await harness.manager.reSync(name: "refresh")
            #expect(try harness.recordsById()[SyncHarness.accountId(2)]?["Name"] == "Same second")
            let since = Self.time(SyncHarness.modified(3)).salesforceFormat
            #expect(harness.soqlSent().last?.hasSuffix("and LastModifiedDate >= \(since)") == true)
            // totalSize is the soup's count, as in Mobile SDK; only record 2 changed (1 and 3 came
            // again unchanged).
            #expect(final.progressSummary == "DONE(100,4)")
            #expect(final.changedCount == 1)
        }
    }

    /// The reporter's scenario (issue 17) on a simulator whose clock, like Salesforce's, gives
    /// every save of one second the same date: another user edits records while the app
    /// reSyncs, twenty times over; every edit arrives and each reSync counts only its own as changed.
    @Test func everyEditArrivesWhenAnotherUserEditsBetweenFrequentReSyncs() async throws {
        let clock = ManualWallClock(Self.time(1_704_067_200_000))
        try await SyncHarness.with(accounts: 200, simulatorClock: .wall(clock)) { harness in
            try await harness.manager.syncDown(
                target: Self.soqlTarget(), options: SyncOptions(mergeMode: .leaveIfChanged),
                soupName: SyncHarness.soup, name: "busy")
            var totals: [Int64] = []
            for round in 0..<20 {
                // 400 ms a round: each second holds the edits of two or three rounds and reSyncs.
                clock.advance(by: .milliseconds(400))
                for edit in 0..<5 {
                    let number = (round * 37 + edit * 41) % 200
                    try harness.simulator.write(
                        type: "Account", id: SyncHarness.accountId(number),
                        fields: ["Name": .string("Round \(round) edit \(edit)")])
                }
                totals.append(try await harness.manager.reSync(name: "busy").changedCount)
            }
            #expect(totals == Array(repeating: 5, count: 20))
            let local = try harness.recordsById()
            let missed = harness.simulator.liveRecords(type: "Account").filter { server in
                local[server["Id"]?.string ?? ""]?["Name"] != server["Name"]
            }
            #expect(missed.isEmpty, "edits that never arrived: \(missed.compactMap { $0["Name"]?.string })")
            #expect(local.count == 200)
        }
    }
}
