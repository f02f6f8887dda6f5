import Determinism
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import SalesforceAPI
import SalesforceSimulator
import Soups
import SyncTesting
import Synchronization
import Testing

/// `SyncUpRunner` end to end: a store's dirty records pushed to the simulator over loopback
/// through each built-in target, with intents and outcomes in the journal.
@Suite struct SyncUpRunnerTests {
    static let kinds: [SyncUpTargetDescriptor.Kind] = [.singleRecord, .batch, .collection]

    /// A store whose `accounts` soup holds clean copies of the org's accounts.
    struct Local {
        let directory: TemporaryDirectory
        let store: SyncStore

        init(copying org: SyncUpOrg) async throws {
            directory = try TemporaryDirectory("syncup")
            store = try SyncStore(
                directory: directory.appending("store"),
                clock: ManualWallClock(WallTime(millisecondsSinceEpoch: 1_700_000_000_000), tick: .milliseconds(1)),
                idGenerator: IncrementingIDGenerator(), logger: .discarding)
            try store.soups.registerSoup(
                "accounts",
                indexSpecs: [IndexSpec(path: "Id", type: .string), IndexSpec(path: "__local__", type: .string)])
            let fetched = try await org.client.query("SELECT Id, Name, LastModifiedDate FROM Account")
            for record in fetched.records {
                var fields = record.object ?? [:]
                fields["__local__"] = false
                _ = try store.soups.create("accounts", .object(fields))
            }
        }

        func entryId(_ id: String) throws -> Int64 {
            try #require(try store.soups.lookupSoupEntryId("accounts", path: "Id", value: .string(id)))
        }

        func record(_ entryId: Int64) throws -> JSONValue? {
            try store.soups.retrieve("accounts", ids: [entryId]).first
        }

        func createLocally(_ name: String, _ extra: [String: JSONValue] = [:]) throws -> Int64 {
            var fields = extra
            fields["Name"] = .string(name)
            fields["attributes"] = ["type": "Account"]
            let created = try store.soups.createLocally("accounts", .object(fields))
            return try #require(created["_soupEntryId"]?.number?.int64Value)
        }

        func runner(
            _ org: SyncUpOrg, _ kind: SyncUpTargetDescriptor.Kind, descriptor: SyncUpTargetDescriptor = .init(),
            mergeMode: MergeMode = .overwrite
        ) -> SyncUpRunner {
            SyncUpRunner(
                store: store, target: org.target(kind, descriptor), syncId: 1, soupName: "accounts",
                options: SyncOptions(mergeMode: mergeMode, fieldlist: ["Name"]), client: org.client)
        }
    }

    @Test(arguments: kinds)
    func pushesLocalChangesAndCleansThemWithServerIds(kind: SyncUpTargetDescriptor.Kind) async throws {
        try await SyncUpOrg.with(accounts: [["Name": "Alpha"], ["Name": "Beta"]]) { org in
            let local = try await Local(copying: org)
            defer { local.directory.remove() }
            let alpha = try #require(try await org.accountId(named: "Alpha"))
            let beta = try #require(try await org.accountId(named: "Beta"))
            _ = try local.store.soups.updateLocally("accounts", entryId: local.entryId(alpha), changes: ["Name": "A2"])
            _ = try local.store.soups.deleteLocally("accounts", entryId: local.entryId(beta))
            let gamma = try local.createLocally("Gamma")
            let offline = try local.createLocally("Offline only")
            _ = try local.store.soups.deleteLocally("accounts", entryId: offline)
            let reported = Mutex<[Int]>([])

            let (summary, stopped) = try await local.runner(org, kind).run(progress: { done, _ in
                reported.withLock { $0.append(done) }
            })

            #expect(!stopped)
            #expect(reported.withLock { $0.first } == 0)
            #expect(reported.withLock { $0.last } == 4)
            #expect(summary.sent == 3)
            #expect(summary.succeeded == 4)
            #expect(summary.failed.isEmpty)
            #expect(try await org.account(alpha)?["Name"] == "A2")
            #expect(try await org.account(beta) == nil)
            let serverGamma = try #require(try await org.accountId(named: "Gamma"))
            #expect(try local.record(gamma)?["Id"]?.string == serverGamma)
            #expect(try local.record(offline) == nil)
            #expect(try local.store.soups.dirtyRecords("accounts").isEmpty)
            #expect(try local.store.pendingUploads(syncId: 1).isEmpty)
            #expect(try local.store.journal.verify().isConsistent)
        }
    }

    @Test(arguments: kinds)
    func aRefusedRecordKeepsItsChangeAndTheErrorWhileOthersGoThrough(kind: SyncUpTargetDescriptor.Kind) async throws {
        try await SyncUpOrg.with { org in
            let local = try await Local(copying: org)
            defer { local.directory.remove() }
            let tooLong = try local.createLocally(String(repeating: "x", count: 300))
            let fine = try local.createLocally("Fine")
            let (summary, _) = try await local.runner(org, kind).run()
            #expect(summary.failed.map(\.entryId) == [tooLong])
            #expect(summary.failed.first?.message.contains("STRING_TOO_LONG") == true)
            let refused = try #require(try local.record(tooLong))
            #expect(refused["__local__"] == true)
            #expect(refused["__last_error__"]?.string?.contains("STRING_TOO_LONG") == true)
            #expect(try local.record(fine)?["__local__"] == false)
            #expect(try local.store.journal.verify().isConsistent)
        }
    }

    @Test(arguments: kinds)
    func leaveIfChangedLeavesRecordsTheServerChangedSince(kind: SyncUpTargetDescriptor.Kind) async throws {
        try await SyncUpOrg.with(accounts: [["Name": "Alpha"], ["Name": "Beta"]]) { org in
            let local = try await Local(copying: org)
            defer { local.directory.remove() }
            let alpha = try #require(try await org.accountId(named: "Alpha"))
            let beta = try #require(try await org.accountId(named: "Beta"))
            try org.simulator.write(type: "Account", id: beta, fields: ["Name": "Beta by someone else"])
            _ = try local.store.soups.updateLocally("accounts", entryId: local.entryId(alpha), changes: ["Name": "A2"])
            _ = try local.store.soups.updateLocally("accounts", entryId: local.entryId(beta), changes: ["Name": "B2"])
            let (summary, _) = try await local.runner(org, kind, mergeMode: .leaveIfChanged).run()
            #expect(summary.skippedByLeaveIfChanged == [try local.entryId(beta)])
            #expect(try await org.account(alpha)?["Name"] == "A2")
            #expect(try await org.account(beta)?["Name"] == "Beta by someone else")
            #expect(try local.record(local.entryId(beta))?["__local__"] == true)

            // The same change under OVERWRITE is pushed over the server's copy.
            let (again, _) = try await local.runner(org, kind, mergeMode: .overwrite).run()
            #expect(again.skippedByLeaveIfChanged.isEmpty)
            #expect(try await org.account(beta)?["Name"] == "B2")
            #expect(try local.record(local.entryId(beta))?["__local__"] == false)
            #expect(try local.store.journal.verify().isConsistent)
        }
    }

    @Test(arguments: kinds)
    func recordsDeletedOnTheServerMeetLocalChangesAsMobileSyncDecides(
        kind: SyncUpTargetDescriptor.Kind
    ) async throws {
        try await SyncUpOrg.with(accounts: [["Name": "Alpha"], ["Name": "Beta"], ["Name": "Gamma"]]) { org in
            let local = try await Local(copying: org)
            defer { local.directory.remove() }
            let ids = [
                try #require(try await org.accountId(named: "Alpha")),
                try #require(try await org.accountId(named: "Beta")),
                try #require(try await org.accountId(named: "Gamma")),
            ]
            let (updated, deleted, deletedLater) = (
                try local.entryId(ids[0]), try local.entryId(ids[1]), try local.entryId(ids[2])
            )
            for id in ids { try org.simulator.delete(type: "Account", id: id) }
            _ = try local.store.soups.updateLocally("accounts", entryId: updated, changes: ["Name": "Alpha 2"])
            _ = try local.store.soups.deleteLocally("accounts", entryId: deleted)
            _ = try local.store.soups.deleteLocally("accounts", entryId: deletedLater)

            // LEAVE_IF_CHANGED: an update of a record gone from the server is left alone; a
            // delete of one is done (the 404 is the answer it wanted).
            let (summary, _) = try await local.runner(org, kind, mergeMode: .leaveIfChanged).run()
            #expect(summary.skippedByLeaveIfChanged == [updated])
            #expect(summary.failed.isEmpty)
            #expect(try local.record(updated)?["__local__"] == true)
            #expect(try local.record(deleted) == nil)
            #expect(try local.record(deletedLater) == nil)
            #expect(try await org.accountId(named: "Alpha 2") == nil)

            // OVERWRITE: the update creates the record again.
            let (again, _) = try await local.runner(org, kind, mergeMode: .overwrite).run()
            #expect(again.failed.isEmpty)
            let recreated = try #require(try await org.accountId(named: "Alpha 2"))
            #expect(try local.record(updated)?["Id"]?.string == recreated)
            #expect(try local.record(updated)?["__local__"] == false)
            #expect(try local.store.journal.verify().isConsistent)
        }
    }

    @Test(arguments: kinds)
    func underOverwriteAnUpdateOfARecordDeletedOnTheServerCreatesItAgain(
        kind: SyncUpTargetDescriptor.Kind
    ) async throws {
        try await SyncUpOrg.with(accounts: [["Name": "Alpha"]]) { org in
            let local = try await Local(copying: org)
            defer { local.directory.remove() }
            let alpha = try #require(try await org.accountId(named: "Alpha"))
            let entryId = try local.entryId(alpha)
            try org.simulator.delete(type: "Account", id: alpha)
            _ = try local.store.soups.updateLocally("accounts", entryId: entryId, changes: ["Name": "Alpha again"])
            let (summary, _) = try await local.runner(org, kind).run()
            #expect(summary.failed.isEmpty)
            let recreated = try #require(try await org.accountId(named: "Alpha again"))
            #expect(recreated != alpha)
            #expect(try local.record(entryId)?["Id"]?.string == recreated)
            #expect(try local.record(entryId)?["__local__"] == false)
        }
    }

    /// The request path whose create answer a crash loses, per target.
    static func createPath(_ kind: SyncUpTargetDescriptor.Kind) -> String {
        switch kind {
        case .singleRecord: "/services/data/v66.0/sobjects/Account"
        case .batch: "/services/data/v66.0/composite"
        default: "/services/data/v66.0/composite/sobjects"
        }
    }

    private func loseTheNextCreateAnswer(_ org: SyncUpOrg, _ kind: SyncUpTargetDescriptor.Kind) {
        org.simulator.setFaultPlan(
            FaultPlan(rules: [FaultRule(method: "POST", path: Self.createPath(kind), drop: .afterCommit, count: 1)]))
    }

    /// Creates Gamma locally, then runs a sync up (with an `AccountNumber` marker) whose create
    /// answer is lost: the run fails and leaves the upload pending.
    private func createGammaAndLoseItsAnswer(
        _ local: Local, _ org: SyncUpOrg, _ kind: SyncUpTargetDescriptor.Kind
    ) async throws -> (gamma: Int64, descriptor: SyncUpTargetDescriptor) {
        let gamma = try local.createLocally("Gamma")
        var descriptor = SyncUpTargetDescriptor()
        descriptor.otherFields["markerFieldName"] = "AccountNumber"
        loseTheNextCreateAnswer(org, kind)
        await #expect(throws: (any Error).self) {
            _ = try await local.runner(org, kind, descriptor: descriptor).run()
        }
        return (gamma, descriptor)
    }

    @Test(arguments: kinds)
    func aCreateWhoseAnswerWasLostIsFoundByItsMarkerInsteadOfSentTwice(
        kind: SyncUpTargetDescriptor.Kind
    ) async throws {
        try await SyncUpOrg.with { org in
            let local = try await Local(copying: org)
            defer { local.directory.remove() }
            let (gamma, descriptor) = try await createGammaAndLoseItsAnswer(local, org, kind)
            #expect(try local.store.pendingUploads(syncId: 1).count == 1)
            #expect(try local.record(gamma)?["__local__"] == true)

            let (summary, _) = try await local.runner(org, kind, descriptor: descriptor).run()
            #expect(summary.recovered == [gamma])
            #expect(summary.possibleDuplicates.isEmpty)
            #expect(try await org.client.query("SELECT Id FROM Account WHERE Name = 'Gamma'").records.count == 1)
            let serverGamma = try #require(try await org.accountId(named: "Gamma"))
            #expect(try local.record(gamma)?["Id"]?.string == serverGamma)
            #expect(try local.record(gamma)?["__local__"] == false)
            #expect(try local.store.pendingUploads(syncId: 1).isEmpty)
            #expect(try local.store.journal.verify().isConsistent)
        }
    }

    /// Compaction keeps an upload whose outcome is unknown: the horizon stops at its intent,
    /// and after a crash the next run still finds the create by its marker.
    @Test func aPendingUploadSurvivesCompactionAndStillReconcilesAfterACrash() async throws {
        try await SyncUpOrg.with { org in
            let local = try await Local(copying: org)
            defer { local.directory.remove() }
            let (gamma, descriptor) = try await createGammaAndLoseItsAnswer(local, org, .singleRecord)
            let intent = try #require(try local.store.pendingUploads(syncId: 1).first)
            let intentSequence = try #require(intent["intentSequence"]?.number?.int64Value)
            for n in 1...30 { _ = try local.createLocally("Later \(n)") }

            let report = try local.store.journal.compact(retention: RetentionPolicy(entryCount: 1))
            #expect(report.horizon.firstSequence == UInt64(intentSequence))
            #expect(report.keptBecause.contains("syncs.uploads"), "\(report)")
            local.store.journal.abandon()

            let reopened = try SyncStore(
                directory: local.directory.appending("store"),
                clock: ManualWallClock(WallTime(millisecondsSinceEpoch: 1_800_000_000_000), tick: .milliseconds(1)),
                idGenerator: IncrementingIDGenerator(first: 1_000), logger: .discarding)
            #expect(try reopened.pendingUploads(syncId: 1).count == 1)
            let runner = SyncUpRunner(
                store: reopened, target: org.target(.singleRecord, descriptor), syncId: 1, soupName: "accounts",
                options: SyncOptions(mergeMode: .overwrite, fieldlist: ["Name"]), client: org.client)
            let (summary, _) = try await runner.run()
            #expect(summary.recovered == [gamma])
            #expect(try await org.client.query("SELECT Id FROM Account WHERE Name = 'Gamma'").records.count == 1)
            #expect(try reopened.pendingUploads(syncId: 1).isEmpty)
            #expect(try reopened.journal.verify().isConsistent)
        }
    }

    @Test(arguments: kinds)
    func aCreateWithAnExternalIdIsResentAsAnUpsertAfterALostAnswer(kind: SyncUpTargetDescriptor.Kind) async throws {
        try await SyncUpOrg.with { org in
            let local = try await Local(copying: org)
            defer { local.directory.remove() }
            let gamma = try local.createLocally("Gamma", ["ExternalId__c": "EXT-7"])
            var descriptor = SyncUpTargetDescriptor()
            descriptor.externalIdFieldName = "ExternalId__c"
            // An upsert is an idempotent PATCH, so the client retries a lost answer by itself; lose
            // every answer until the run gives up, then let the next run resend it.
            let path = kind == .batch ? Self.createPath(kind) : "/services/data/v66.0/"
            org.simulator.setFaultPlan(
                FaultPlan(rules: [
                    FaultRule(method: kind == .batch ? "POST" : "PATCH", path: path, drop: .afterCommit, count: 50)
                ]))
            await #expect(throws: (any Error).self) {
                _ = try await local.runner(org, kind, descriptor: descriptor).run()
            }
            #expect(try local.store.pendingUploads(syncId: 1).count == 1)
            org.simulator.setFaultPlan(.none)
            let (summary, _) = try await local.runner(org, kind, descriptor: descriptor).run()
            #expect(summary.possibleDuplicates.isEmpty)
            #expect(try await org.client.query("SELECT Id FROM Account WHERE Name = 'Gamma'").records.count == 1)
            #expect(try local.record(gamma)?["__local__"] == false)
        }
    }

    @Test(arguments: kinds)
    func withoutExternalIdOrMarkerAResentCreateIsReportedAsAPossibleDuplicate(
        kind: SyncUpTargetDescriptor.Kind
    ) async throws {
        try await SyncUpOrg.with { org in
            let local = try await Local(copying: org)
            defer { local.directory.remove() }
            let gamma = try local.createLocally("Gamma")
            loseTheNextCreateAnswer(org, kind)
            await #expect(throws: (any Error).self) { _ = try await local.runner(org, kind).run() }
            let (summary, _) = try await local.runner(org, kind).run()
            #expect(summary.possibleDuplicates == [gamma])
            #expect(try local.record(gamma)?["__local__"] == false)
        }
    }

    @Test(arguments: [
        (SyncUpTargetDescriptor.Kind.singleRecord, 500), (.batch, 20), (.collection, 3),
    ])
    func fiveHundredLocalCreatesTakeOneRequestPerBatch(kind: SyncUpTargetDescriptor.Kind, requests: Int)
        async throws
    {
        try await SyncUpOrg.with { org in
            let local = try await Local(copying: org)
            defer { local.directory.remove() }
            for number in 1...500 { _ = try local.createLocally("Bulk \(number)") }
            let before = org.requests().count
            let (summary, _) = try await local.runner(org, kind).run()
            #expect(org.requests().count - before == requests)
            #expect(summary.succeeded == 500)
            #expect(try local.store.soups.dirtyRecords("accounts").isEmpty)
            #expect(try await org.client.query("SELECT COUNT() FROM Account").totalSize == 500)
        }
    }

    @Test func aStopRequestEndsTheRunBetweenBatchesAndLeavesTheRestDirty() async throws {
        try await SyncUpOrg.with { org in
            let local = try await Local(copying: org)
            defer { local.directory.remove() }
            for number in 1...3 { _ = try local.createLocally("Account \(number)") }
            let runner = local.runner(org, .singleRecord)
            let calls = Counter()
            let (summary, stopped) = try await runner.run(shouldStop: { calls.next() > 1 })
            #expect(stopped)
            #expect(summary.sent == 2)
            #expect(try local.store.soups.dirtyRecords("accounts").count == 1)
        }
    }
}

/// Counts calls from a `@Sendable` closure.
final class Counter: Sendable {
    private let count = Mutex(0)

    /// The number of calls before this one.
    func next() -> Int {
        count.withLock { value in
            defer { value += 1 }
            return value
        }
    }
}
