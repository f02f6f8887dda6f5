import LosslessJSON
import MobileSync
import Testing

/// The three-way merge of MERGE_FIELDS, one test per cell of docs/conflicts.md's matrix.
@Suite struct FieldMergeTests {
    private static let base: [String: JSONValue] = ["Id": "001", "Name": "Acme", "Phone": "1", "_soupEntryId": 4]

    @Test func aFieldChangedNowhereKeepsItsValue() {
        let merge = FieldMerge(base: Self.base, local: Self.base, server: Self.base)
        #expect(merge.merged == Self.base)
        #expect(merge.conflicts.isEmpty)
        #expect(!merge.hasLocalChanges)
    }

    @Test func aFieldChangedOnlyLocallyKeepsTheLocalValue() {
        let local = Self.base.merging(["Name": "Mine"]) { $1 }
        let merge = FieldMerge(base: Self.base, local: local, server: Self.base)
        #expect(merge.merged["Name"] == "Mine")
        #expect(merge.conflicts.isEmpty)
        #expect(merge.hasLocalChanges)
    }

    @Test func aFieldChangedOnlyOnTheServerTakesTheServersValue() {
        let server = Self.base.merging(["Phone": "2"]) { $1 }
        let merge = FieldMerge(base: Self.base, local: Self.base.merging(["Name": "Mine"]) { $1 }, server: server)
        #expect(merge.merged["Phone"] == "2")
        #expect(merge.merged["Name"] == "Mine")
        #expect(merge.conflicts.isEmpty)
        #expect(merge.base["Phone"] == "2")
    }

    /// Found by the seeded campaign: a local record lacking Phone, and a server copy with
    /// `"Phone": null`, listed Phone as a conflict with every side null.
    @Test func anAbsentFieldAndANullOneAreTheSameEvenWithoutABase() {
        let local: [String: JSONValue] = ["Id": "001", "Name": "Acme"]
        let server: [String: JSONValue] = ["Id": "001", "Name": "Acme", "Phone": .null]
        let merge = FieldMerge(base: nil, local: local, server: server)
        #expect(merge.conflicts.isEmpty)
        #expect(FieldMerge.serverChangedFields(server, from: local).isEmpty)
        #expect(FieldMerge.changedFields(of: server, from: local).isEmpty)
    }

    @Test func aFieldChangedOnBothSidesAlikeIsNoConflictAndNoLocalChange() {
        let changed = Self.base.merging(["Name": "Same"]) { $1 }
        let merge = FieldMerge(base: Self.base, local: changed, server: changed)
        #expect(merge.merged["Name"] == "Same")
        #expect(merge.conflicts.isEmpty)
        #expect(!merge.hasLocalChanges)
    }

    @Test func aFieldChangedOnBothSidesDifferentlyKeepsTheLocalValueAndIsAConflict() {
        let merge = FieldMerge(
            base: Self.base, local: Self.base.merging(["Name": "Mine"]) { $1 },
            server: Self.base.merging(["Name": "Theirs"]) { $1 })
        #expect(merge.merged["Name"] == "Mine")
        #expect(
            merge.conflicts == [RecordConflict.Field(path: "Name", base: "Acme", local: "Mine", server: "Theirs")])
    }

    @Test func aFieldTheServerCopyLacksIsNotAServerChange() {
        let merge = FieldMerge(
            base: Self.base, local: Self.base.merging(["Name": "Mine"]) { $1 }, server: ["Id": "001", "Phone": "1"])
        #expect(merge.merged["Name"] == "Mine")
        #expect(merge.conflicts.isEmpty)
    }

    @Test func aNestedObjectIsOneValue() {
        let base = Self.base.merging(["Address": ["City": "Paris", "Zip": "75001"]]) { $1 }
        let merge = FieldMerge(
            base: base, local: base.merging(["Address": ["City": "Lyon", "Zip": "75001"]]) { $1 },
            server: base.merging(["Address": ["City": "Paris", "Zip": "75002"]]) { $1 })
        #expect(merge.conflicts.map(\.path) == ["Address"])
    }

    @Test func bookkeepingMembersAreNeverMergedOrInConflict() {
        let merge = FieldMerge(
            base: Self.base, local: Self.base.merging(["__local__": true, "_soupEntryId": 4]) { $1 },
            server: Self.base.merging(["_soupEntryId": 9, "__local__": false]) { $1 })
        #expect(merge.conflicts.isEmpty)
        #expect(merge.merged["__local__"] == true)
        #expect(!merge.hasLocalChanges)
    }

    @Test func withoutABaseEveryDifferingFieldIsAConflict() {
        let merge = FieldMerge(
            base: nil, local: Self.base.merging(["Name": "Mine"]) { $1 },
            server: Self.base.merging(["Phone": "2"]) { $1 })
        #expect(merge.conflicts.map(\.path) == ["Name", "Phone"])
        #expect(merge.conflicts.allSatisfy { $0.base == nil })
    }
}
