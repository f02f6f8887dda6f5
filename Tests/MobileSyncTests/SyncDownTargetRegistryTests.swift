import MobileSync
import Testing

/// Built-in targets are made from their descriptors; custom ones only when registered.
@Suite struct SyncDownTargetRegistryTests {
    @Test func builtInDescriptorsMakeTheirTargets() throws {
        let registry = SyncDownTargetRegistry()
        let soql = try registry.makeTarget(for: SyncDownTargetDescriptor(.soql(query: "SELECT Name FROM Account")))
        #expect(soql is SOQLSyncDownTarget)
        #expect(soql.isSortedByModificationDate)
        #expect(soql.totalSize == -1)
        let sosl = try registry.makeTarget(for: SyncDownTargetDescriptor(.sosl(query: "FIND {a}")))
        #expect(sosl is SOSLSyncDownTarget)
        #expect(!sosl.isSortedByModificationDate)
        let mru = try registry.makeTarget(
            for: SyncDownTargetDescriptor(.mru(sobjectType: "Account", fieldlist: ["Id"])))
        #expect(mru is MRUSyncDownTarget)
        let refresh = try registry.makeTarget(
            for: SyncDownTargetDescriptor(.refresh(sobjectType: "Account", fieldlist: ["Id"], soupName: "accounts")))
        #expect(refresh is RefreshSyncDownTarget)
    }

    @Test func soqlTargetAddsTheReSyncFilterOnlyForAPositiveWatermark() throws {
        let target = try SOQLSyncDownTarget(
            SyncDownTargetDescriptor(
                .soql(query: "SELECT Name FROM Account WHERE Name = 'a'", maxBatchSize: 500), reSyncOverlapSeconds: 3))
        #expect(target.maxBatchSize == 500)
        #expect(
            try target.query(maxTimeStamp: -1)
                == "select Id,LastModifiedDate,Name from Account where Name = 'a' order by LastModifiedDate")
        #expect(
            try target.query(maxTimeStamp: 1_423_170_723_956)
                == "select Id,LastModifiedDate,Name from Account where LastModifiedDate >= 2015-02-05T21:12:00.000+0000"
                + " and Name = 'a' order by LastModifiedDate")
    }

    @Test func aSOQLTargetOrderedByAnotherFieldIsNotSorted() throws {
        let target = try SOQLSyncDownTarget(
            SyncDownTargetDescriptor(.soql(query: "SELECT Id, LastModifiedDate FROM Account ORDER BY Name")))
        #expect(!target.isSortedByModificationDate)
    }

    @Test func anUnregisteredCustomTargetIsATypedError() throws {
        let descriptor = try SyncDownTargetDescriptor(.custom(registryKey: "Nobody"))
        #expect {
            try SyncDownTargetRegistry().makeTarget(for: descriptor)
        } throws: { error in
            (error as? SyncError)?.code == .unknownTarget
                && (error as? SyncError)?.message == "No custom sync down target is registered under \"Nobody\"."
        }
    }

    @Test func aRegisteredCustomTargetIsMadeByItsFactory() throws {
        var registry = SyncDownTargetRegistry()
        registry.register("Paged") { _ in PagedTestTarget(pages: PagedTestTarget.pages(count: 3, pageSize: 2)) }
        #expect(registry.registeredKeys == ["Paged"])
        let target = try registry.makeTarget(for: SyncDownTargetDescriptor(.custom(registryKey: "Paged")))
        #expect(target is PagedTestTarget)
    }

    @Test func aTargetRefusesTheDescriptorOfAnotherKind() throws {
        let sosl = try SyncDownTargetDescriptor(.sosl(query: "FIND {a}"))
        #expect { try SOQLSyncDownTarget(sosl) } throws: { ($0 as? SyncError)?.code == .malformedTarget }
        #expect { try MRUSyncDownTarget(sosl) } throws: { ($0 as? SyncError)?.code == .malformedTarget }
        #expect { try RefreshSyncDownTarget(sosl) } throws: { ($0 as? SyncError)?.code == .malformedTarget }
        let soql = try SyncDownTargetDescriptor(.soql(query: "SELECT Id FROM Account"))
        #expect { try SOSLSyncDownTarget(soql) } throws: { ($0 as? SyncError)?.code == .malformedTarget }
    }
}
