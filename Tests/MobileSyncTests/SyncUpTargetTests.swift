import Determinism
import Foundation
import LosslessJSON
import MobileSync
import SalesforceAPI
import SalesforceSimulator
import Testing

/// The three built-in sync-up targets against the simulator over loopback HTTP: each rule runs
/// for the single-record, composite batch and sObject Collections targets.
@Suite struct SyncUpTargetTests {
    static let kinds: [SyncUpTargetDescriptor.Kind] = [.singleRecord, .batch, .collection]

    @Test(arguments: kinds)
    func pushesUpdatesCreatesAndDeletesAndNeverSendsARecordCreatedAndDeletedLocally(
        kind: SyncUpTargetDescriptor.Kind
    ) async throws {
        try await SyncUpOrg.with(accounts: [["Name": "Alpha"], ["Name": "Beta"]]) { org in
            let alpha = try #require(try await org.accountId(named: "Alpha"))
            let beta = try #require(try await org.accountId(named: "Beta"))
            let target = org.target(kind, SyncUpTargetDescriptor())
            let records = [
                dirtyAccount(["Id": .string(alpha), "Name": "Alpha Two"], .update),
                dirtyAccount(["Id": .string(beta), "Name": "Beta"], .delete),
                dirtyAccount(["Id": "local_1", "Name": "Gamma"], .create),
                dirtyAccount(["Id": "local_2", "Name": "Never Sent"], .delete, alsoCreated: true),
            ]
            let before = org.requests().count
            let outcomes = try await target.syncUp(records, fieldlist: ["Id", "Name"])
            let sent = org.requests().dropFirst(before)

            let gamma = try #require(try await org.accountId(named: "Gamma"))
            #expect(outcomes == [.updated, .deleted, .created(serverId: gamma), .deleted])
            #expect(try await org.account(alpha)?["Name"] == "Alpha Two")
            #expect(try await org.account(beta) == nil)
            #expect(try await org.accountId(named: "Never Sent") == nil)
            #expect(!sent.contains { $0.contains("local_2") })
            switch kind {
            case .singleRecord: #expect(sent.count == 3)
            case .batch: #expect(sent.count == 1)
            default: #expect(sent.count == 3)  // one create, one update and one delete call
            }
        }
    }

    @Test(arguments: kinds)
    func honoursTheCreateAndUpdateFieldLists(kind: SyncUpTargetDescriptor.Kind) async throws {
        try await SyncUpOrg.with(accounts: [["Name": "Alpha", "Industry": "Energy"]]) { org in
            let alpha = try #require(try await org.accountId(named: "Alpha"))
            var descriptor = SyncUpTargetDescriptor()
            descriptor.createFieldlist = ["Name", "Industry"]
            descriptor.updateFieldlist = ["Industry"]
            let target = org.target(kind, descriptor)
            let outcomes = try await target.syncUp(
                [
                    dirtyAccount(["Id": .string(alpha), "Name": "Renamed", "Industry": "Retail"], .update),
                    dirtyAccount(["Id": "local_1", "Name": "Gamma", "Industry": "Banking"], .create),
                ], fieldlist: ["Name"])
            #expect(outcomes.first == .updated)
            let updated = try #require(try await org.account(alpha))
            #expect(updated["Name"] == "Alpha")  // Name is not in the update list
            #expect(updated["Industry"] == "Retail")
            let gamma = try #require(try await org.accountId(named: "Gamma"))
            #expect(try await org.account(gamma)?["Industry"] == "Banking")
        }
    }

    @Test(arguments: kinds)
    func withoutAnyFieldListTheSyncFails(kind: SyncUpTargetDescriptor.Kind) async throws {
        try await SyncUpOrg.with { org in
            let target = org.target(kind, SyncUpTargetDescriptor())
            await #expect(throws: SyncError.self) {
                _ = try await target.syncUp(
                    [dirtyAccount(["Id": "local_1", "Name": "Gamma"], .create)], fieldlist: nil)
            }
        }
    }

    @Test(arguments: kinds)
    func serverRefusalsAreOutcomesOfTheirRecordsOnly(kind: SyncUpTargetDescriptor.Kind) async throws {
        try await SyncUpOrg.with(accounts: [["Name": "Alpha"], ["Name": "Gone"]]) { org in
            let alpha = try #require(try await org.accountId(named: "Alpha"))
            let gone = try #require(try await org.accountId(named: "Gone"))
            try org.simulator.delete(type: "Account", id: gone)
            let target = org.target(kind, SyncUpTargetDescriptor())
            var untyped = dirtyAccount(["Id": "local_3", "Name": "No Type"], .create).object ?? [:]
            untyped["attributes"] = nil
            let outcomes = try await target.syncUp(
                [
                    dirtyAccount(["Id": "local_1", "Name": .string(String(repeating: "x", count: 300))], .create),
                    dirtyAccount(["Id": .string(gone), "Name": "Gone Two"], .update),
                    .object(untyped),
                    dirtyAccount(["Id": .string(alpha), "Name": "Alpha Two"], .update),
                ], fieldlist: ["Name"])
            #expect(outcomes.count == 4)
            #expect(outcomes[0].lastError?.contains("STRING_TOO_LONG") == true)
            #expect(outcomes[1] == .notFound)
            #expect(outcomes[2].lastError?.contains("MISSING_OBJECT_TYPE") == true)
            #expect(outcomes[3] == .updated)
            #expect(try await org.account(alpha)?["Name"] == "Alpha Two")
        }
    }

    @Test(arguments: kinds)
    func aBadObjectTypeIsARefusedRecord(kind: SyncUpTargetDescriptor.Kind) async throws {
        try await SyncUpOrg.with { org in
            let target = org.target(kind, SyncUpTargetDescriptor())
            var record = dirtyAccount(["Id": "local_1", "Name": "Gamma"], .create).object ?? [:]
            record["attributes"] = ["type": "NoSuchObject__c"]
            let outcomes = try await target.syncUp([.object(record)], fieldlist: ["Name"])
            #expect(outcomes.first?.lastError != nil)
        }
    }

    @Test(arguments: kinds)
    func aCreateWithAnExternalIdIsAnUpsertThatNeverDuplicates(kind: SyncUpTargetDescriptor.Kind) async throws {
        try await SyncUpOrg.with(accounts: [["Name": "Alpha", "ExternalId__c": "ACC-1"]]) { org in
            let alpha = try #require(try await org.accountId(named: "Alpha"))
            var descriptor = SyncUpTargetDescriptor()
            descriptor.externalIdFieldName = "ExternalId__c"
            let target = org.target(kind, descriptor)
            let record = dirtyAccount(["Id": "local_1", "Name": "Alpha Again", "ExternalId__c": "ACC-1"], .create)
            #expect(try await target.syncUp([record], fieldlist: ["Name"]) == [.created(serverId: alpha)])
            // Sent twice (a retry after a lost answer), it still names the same record.
            #expect(try await target.syncUp([record], fieldlist: ["Name"]) == [.created(serverId: alpha)])
            let all = try await org.client.query("SELECT Id FROM Account")
            #expect(all.records.count == 1)
            #expect(try await org.account(alpha)?["Name"] == "Alpha Again")
        }
    }

    @Test(arguments: kinds)
    func leaveIfChangedComparesModificationDatesWithTheServer(kind: SyncUpTargetDescriptor.Kind) async throws {
        try await SyncUpOrg.with(accounts: [["Name": "Alpha"], ["Name": "Beta"], ["Name": "Gone"]]) { org in
            let alpha = try #require(try await org.accountId(named: "Alpha"))
            let beta = try #require(try await org.accountId(named: "Beta"))
            let gone = try #require(try await org.accountId(named: "Gone"))
            let fetched = try await org.client.query("SELECT Id, LastModifiedDate FROM Account WHERE Id = '\(alpha)'")
            let seen = try #require(fetched.records.first?["LastModifiedDate"]?.string)
            try org.simulator.write(type: "Account", id: beta, fields: ["Name": "Beta by someone else"])
            try org.simulator.delete(type: "Account", id: gone)
            let target = org.target(kind, SyncUpTargetDescriptor())
            let answers = try await target.areNewerThanServer([
                dirtyAccount(["Id": .string(alpha), "LastModifiedDate": .string(seen)], .update),
                dirtyAccount(["Id": .string(beta), "LastModifiedDate": .string(seen)], .update),
                dirtyAccount(["Id": .string(gone), "LastModifiedDate": .string(seen)], .update),
                dirtyAccount(["Id": .string(gone), "LastModifiedDate": .string(seen)], .delete),
                dirtyAccount(["Id": "local_1"], .create),
                dirtyAccount(["Id": .string(alpha)], .update),
            ])
            #expect(answers == [true, false, false, true, true, true])
        }
    }

    @Test func theCollectionTargetRefusesABulkCheckOverSeveralTypes() async throws {
        try await SyncUpOrg.with { org in
            let target = CollectionSyncUpTarget(SyncUpTargetDescriptor(), client: org.client)
            var contact = dirtyAccount(["Id": "003000000000001AAA"], .update).object ?? [:]
            contact["attributes"] = ["type": "Contact"]
            await #expect(throws: SyncError.self) {
                _ = try await target.areNewerThanServer([
                    dirtyAccount(["Id": "001000000000001AAA"], .update), .object(contact),
                ])
            }
        }
    }

    @Test func batchSizesComeFromTheDescriptorWithinEachTargetsLimit() throws {
        let client = SalesforceClient(
            credentials: SalesforceCredentials(
                instanceURL: try #require(URL(string: "http://127.0.0.1:9")), accessToken: "t"),
            clock: ImmediateClock(), randomSeed: 1, logger: SyncUpOrg.logger)
        var descriptor = SyncUpTargetDescriptor()
        #expect(CollectionSyncUpTarget(descriptor, client: client).maxBatchSize == 200)
        #expect(CompositeSyncUpTarget(descriptor, client: client).maxBatchSize == 25)
        #expect(RESTSyncUpTarget(descriptor, client: client).maxBatchSize == 1)
        descriptor.maxBatchSize = 500
        #expect(CollectionSyncUpTarget(descriptor, client: client).maxBatchSize == 200)
        #expect(CompositeSyncUpTarget(descriptor, client: client).maxBatchSize == 25)
        descriptor.maxBatchSize = 10
        #expect(CollectionSyncUpTarget(descriptor, client: client).maxBatchSize == 10)
    }

    /// Mobile SDK saves a batching target's `maxBatchSize` capped, and the default when absent.
    @Test(arguments: [
        (#"{"androidImpl": "com.salesforce.androidsdk.mobilesync.target.BatchSyncUpTarget", "maxBatchSize": 26}"#, 25),
        (#"{"iOSImpl": "SFBatchSyncUpTarget"}"#, 25),
        (#"{"iOSImpl": "SFBatchSyncUpTarget", "maxBatchSize": 7}"#, 7),
        (#"{"maxBatchSize": 201}"#, 200),
        (#"{}"#, 200),
        (#"{"maxBatchSize": 150.0}"#, 150),
        (#"{"maxBatchSize": 0}"#, 1),
    ])
    func savedBatchingTargetsHoldTheCappedBatchSize(json: String, saved: Int64) throws {
        let descriptor = try SyncUpTargetDescriptor(json: JSONValue(parsing: json))
        #expect(descriptor.json["maxBatchSize"]?.number?.int64Value == saved)
        #expect(try SyncUpTargetDescriptor(json: descriptor.json) == descriptor, "a round trip changes nothing")
    }

    @Test func onlyBatchingTargetsSaveABatchSizeAndABadOneIsRefused() throws {
        #expect(SyncUpTargetDescriptor(.singleRecord).json["maxBatchSize"] == nil)
        #expect(SyncUpTargetDescriptor(.batch).json["maxBatchSize"] == 25)
        #expect(SyncUpTargetDescriptor().json["maxBatchSize"] == 200)
        let custom = try SyncUpTargetDescriptor(json: ["iOSImpl": "Mine", "maxBatchSize": 900])
        #expect(custom.json["maxBatchSize"] == 900, "a custom target's member is kept as given")
        #expect {
            try SyncUpTargetDescriptor(json: ["maxBatchSize": "lots"])
        } throws: { ($0 as? SyncError)?.code == .malformedTarget }
    }
}
