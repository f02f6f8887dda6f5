import LosslessJSON
import MobileSync
import Soups
import Testing

/// The ghost rule (`GhostSet`): the engine lists a cleaning's ghosts with it and the fold
/// re-checks each one with it before deleting.
@Suite struct GhostSetTests {
    static func record(_ id: String?, dirty: Bool? = nil, syncId: Int64? = nil) -> JSONValue {
        var members: [String: JSONValue] = ["Name": "n"]
        if let id { members["Id"] = .string(id) }
        if let dirty { members["__local__"] = .bool(dirty) }
        if let syncId { members["__sync_id__"] = .number(JSONNumber(syncId)) }
        return .object(members)
    }

    @Test func ghostsAreCleanRecordsOfThisSyncMissingRemotely() {
        let local = [
            Self.record("keep", dirty: false, syncId: 1),
            Self.record("gone", dirty: false, syncId: 1),
            Self.record("goneToo", dirty: false, syncId: 1),
            Self.record("dirtyGone", dirty: true, syncId: 1),
            Self.record("otherSync", dirty: false, syncId: 2),
            Self.record("localOnly", dirty: true),
            Self.record(nil, dirty: false, syncId: 1),
        ]
        let ghosts = GhostSet.ghostIds(localRecords: local, idFieldName: "Id", syncId: 1, remoteIds: ["keep"])
        #expect(ghosts == ["gone", "goneToo"])
    }

    /// Issue 24: ghost cleaning had its own `isDirty` that missed `__local__` = `"true"`, which
    /// the soup counts as dirty; it now asks the soups' one definition.
    @Test func aRecordTheSoupCountsAsDirtyIsNeverAGhost() {
        var textFlag = Self.record("textDirty", syncId: 1).object ?? [:]
        textFlag["__local__"] = "true"
        let local = [JSONValue.object(textFlag), Self.record("clean", dirty: false, syncId: 1)]
        #expect(LocalFlags.isDirty(.object(textFlag)))
        #expect(GhostSet.ghostIds(localRecords: local, idFieldName: "Id", syncId: 1, remoteIds: []) == ["clean"])
    }

    @Test func ghostCleaningOfOneSyncNeverDeletesAnotherSyncsRecords() {
        let local = [Self.record("a", dirty: false, syncId: 1), Self.record("b", dirty: false, syncId: 2)]
        #expect(GhostSet.ghostIds(localRecords: local, idFieldName: "Id", syncId: 2, remoteIds: []) == ["b"])
        #expect(GhostSet.ghostIds(localRecords: local, idFieldName: "Id", syncId: 3, remoteIds: []).isEmpty)
    }

    // Decision 0304: Mobile SDK's deleteByQuery removes at most one page of ghosts per run;
    // here every ghost is returned, however many there are.
    @Test func everyGhostIsReturnedWithoutAPageLimit() {
        let local = (0..<5_000).map { Self.record("r\($0)", dirty: false, syncId: 1) }
        let ghosts = GhostSet.ghostIds(localRecords: local, idFieldName: "Id", syncId: 1, remoteIds: ["r0"])
        #expect(ghosts.count == 4_999)
    }

    /// Decision 0319: a clean record no sync down wrote, holding a server id, may be an unowned
    /// ghost; a dirty one, one owned by a sync, or one with a local id never is.
    @Test func anUnownedCandidateIsCleanUnownedAndHoldsAServerId() {
        #expect(GhostSet.isUnownedCandidate(Self.record("001A", dirty: false), idFieldName: "Id"))
        #expect(!GhostSet.isUnownedCandidate(Self.record("001A", dirty: true), idFieldName: "Id"))
        #expect(!GhostSet.isUnownedCandidate(Self.record("001A", dirty: false, syncId: 1), idFieldName: "Id"))
        #expect(!GhostSet.isUnownedCandidate(Self.record("local_1", dirty: false), idFieldName: "Id"))
        #expect(!GhostSet.isUnownedCandidate(Self.record(nil, dirty: false), idFieldName: "Id"))
        #expect(!GhostSet.isUnownedCandidate(Self.record("001A"), idFieldName: "Id"))
    }
}
