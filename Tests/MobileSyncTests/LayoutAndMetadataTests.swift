import EventJournal
import LosslessJSON
import MobileSync
import SalesforceSimulator
import Soups
import Testing

/// The layout and metadata targets against the simulator's describe and layout endpoints, and
/// the managers that cache them.
@Suite struct LayoutAndMetadataTests {
    typealias Harness = RelatedRecordsHarness

    static func requestCount(_ harness: Harness, _ suffix: String) -> Int {
        harness.simulator.requestLog().filter { $0["path"]?.string?.hasSuffix(suffix) == true }.count
    }

    @Test func aMetadataSyncStoresTheDescribeUnderTheTypeNameAndReplacesItInPlace() async throws {
        try await Harness.with(accounts: 0) { harness in
            try harness.store.soups.registerSoup("metadata", indexSpecs: [IndexSpec(path: "Id", type: .string)])
            let target = try SyncDownTargetDescriptor(.metadata(sobjectType: "Contact"))
            let first = try await harness.manager.syncDown(target: target, soupName: "metadata", name: "contact")
            #expect(first.progressSummary == "DONE(100,1)")
            let stored = try harness.records("metadata")
            #expect(stored.count == 1)
            #expect(stored.first?["Id"] == "Contact")
            #expect(stored.first?["name"] == "Contact")
            #expect(stored.first?["childRelationships"] != nil)
            _ = try await harness.manager.reSync(name: "contact")
            let again = try harness.records("metadata")
            #expect(again.map { $0["_soupEntryId"] } == stored.map { $0["_soupEntryId"] })
            #expect(try await harness.manager.cleanResyncGhosts(name: "contact") == 0)
            #expect(try harness.records("metadata").count == 1)
        }
    }

    @Test func aLayoutSyncStoresTheLayoutUnderItsParametersWithNullForTheMissingOnes() async throws {
        try await Harness.with(accounts: 0) { harness in
            try harness.store.soups.registerSoup("layouts", indexSpecs: [IndexSpec(path: "Id", type: .string)])
            let target = try SyncDownTargetDescriptor(
                .layout(
                    sobjectType: "Account", formFactor: "Medium", layoutType: "Compact", mode: nil, recordTypeId: nil))
            let final = try await harness.manager.syncDown(target: target, soupName: "layouts")
            #expect(final.status == .done, "\(final.error)")
            let layout = try #require(try harness.records("layouts").first)
            #expect(layout["Id"] == "Account-Medium-Compact-null-null")
            #expect(layout["layoutType"] == "Compact")
            let log = harness.simulator.requestLog().last
            #expect(log?["path"] == "/services/data/v66.0/ui-api/layout/Account")
            #expect(log?["query"] == "formFactor=Medium&layoutType=Compact")
        }
    }

    @Test func theLayoutManagerReadsTheCacheOrTheServerAsItsModeSays() async throws {
        try await Harness.with(accounts: 0) { harness in
            let layouts = LayoutSyncManager(manager: harness.manager)
            #expect(
                try await layouts.fetchLayout(objectType: "Account", layoutType: "Full", fetchMode: .cacheOnly) == nil)
            let fetched = try await layouts.fetchLayout(
                objectType: "Account", layoutType: "Full", fetchMode: .cacheFirst)
            #expect(fetched?["Id"] == "Account-null-Full-null-null")
            #expect(Self.requestCount(harness, "/layout/Account") == 1)
            _ = try await layouts.fetchLayout(objectType: "Account", layoutType: "Full", fetchMode: .cacheFirst)
            #expect(Self.requestCount(harness, "/layout/Account") == 1, "the cache answers")
            _ = try await layouts.fetchLayout(objectType: "Account", layoutType: "Full", fetchMode: .serverFirst)
            #expect(Self.requestCount(harness, "/layout/Account") == 2)
            // One named sync per layout, re-run rather than created again.
            #expect(try harness.store.syncStates().map(\.name) == ["sfdcLayouts/Account-null-Full-null-null"])
            #expect(try harness.records(LayoutSyncManager.soupName).count == 1)
        }
    }

    @Test func theMetadataManagerFailsClearlyWhenTheServerIsNeededAndHasNothing() async throws {
        try await Harness.with(accounts: 0) { harness in
            let metadata = MetadataSyncManager(manager: harness.manager)
            let account = try await metadata.fetchMetadata(objectType: "Account", fetchMode: .serverFirst)
            #expect(account?["keyPrefix"] == "001")
            #expect(try await metadata.fetchMetadata(objectType: "Account", fetchMode: .cacheOnly)?["Id"] == "Account")
            await #expect {
                try await metadata.fetchMetadata(objectType: "Nothing", fetchMode: .cacheFirst)
            } throws: { ($0 as? SyncError)?.code == .fetchFailed }
        }
    }

    /// Mobile SDK's callbacks hand back `Layout` and `Metadata` models, not raw JSON.
    @Test func theManagersReadLayoutsAndDescribesIntoModels() async throws {
        try await Harness.with(accounts: 0) { harness in
            let layout = try #require(
                try await LayoutSyncManager(manager: harness.manager).layout(
                    objectType: "Contact", layoutType: "Full", mode: "Edit", fetchMode: .serverFirst))
            #expect(layout.objectApiName == "Contact")
            #expect(layout.layoutType == "Full")
            #expect(layout.mode == "Edit")
            let section = try #require(layout.sections.first)
            #expect(section.heading == "Information")
            #expect(section.columns == 2)
            let items = section.rows.flatMap(\.items)
            #expect(items.allSatisfy { $0.isEditableForNew && $0.isEditableForUpdate })
            let accountItem = try #require(items.first { $0.fieldNames == ["AccountId"] })
            #expect(accountItem.lookupIdApiName == "AccountId")
            #expect(items.contains { $0.fieldNames == ["LastName"] && $0.isRequired })
            #expect(layout.rawData["Id"] == "Contact-null-Full-Edit-null")

            let metadataManager = MetadataSyncManager(manager: harness.manager)
            let contact = try #require(
                try await metadataManager.metadata(objectType: "Contact", fetchMode: .serverFirst))
            #expect(contact.name == "Contact")
            #expect(contact.keyPrefix == "003")
            #expect(contact.isQueryable && !contact.isCustom)
            let lookup = try #require(contact.field(named: "AccountId"))
            #expect(lookup.type == "reference")
            #expect(lookup.referenceTo == ["Account"])
            let account = try #require(
                try await metadataManager.metadata(objectType: "Account", fetchMode: .serverFirst))
            #expect(account.childRelationships.contains { $0.childObject == "Contact" && $0.field == "AccountId" })
        }
    }
}
