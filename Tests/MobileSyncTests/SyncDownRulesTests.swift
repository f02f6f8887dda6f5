import Determinism
import LosslessJSON
import MobileSync
import Soups
import Testing

@Suite struct SyncDownRulesTests {
    static func record(_ id: String?, modified: String? = nil, dirty: Bool? = nil, syncId: Int64? = nil) -> JSONValue {
        var members: [String: JSONValue] = ["Name": "n"]
        if let id { members["Id"] = .string(id) }
        if let modified { members["LastModifiedDate"] = .string(modified) }
        if let dirty { members["__local__"] = .bool(dirty) }
        if let syncId { members["__sync_id__"] = .number(JSONNumber(syncId)) }
        return .object(members)
    }

    @Test func pageMaxTimeStampIsTheLatestModification() {
        let records = [
            Self.record("a", modified: "2024-05-01T12:30:00.000+0000"),
            Self.record("b", modified: "2024-05-01T12:30:00.500Z"),
            Self.record("c", modified: "2024-05-01T14:30:00.000+02:00"),
        ]
        let expected = WallTime(iso8601: "2024-05-01T12:30:00.500Z")?.millisecondsSinceEpoch
        #expect(SyncDownPage.latestModificationTimeStamp(of: records, fieldName: "LastModifiedDate") == expected)
    }

    @Test(arguments: [nil, "yesterday", "2024-13-01T00:00:00.000+0000"] as [String?])
    func onePageRecordWithoutAReadableDateVoidsThePage(bad: String?) {
        let records = [Self.record("a", modified: "2024-05-01T12:30:00.000+0000"), Self.record("b", modified: bad)]
        #expect(SyncDownPage.latestModificationTimeStamp(of: records, fieldName: "LastModifiedDate") == -1)
    }

    @Test func emptyPageHasNoTimeStamp() {
        #expect(SyncDownPage.latestModificationTimeStamp(of: [], fieldName: "LastModifiedDate") == -1)
    }

    @Test(arguments: [SyncType.syncDown, .syncUp])
    func duplicateNamesUseTheReferenceText(type: SyncType) {
        let word = type == .syncDown ? "sync down" : "sync up"
        #expect {
            try SyncNames.checkAvailable("accounts", for: type) { $0 == "accounts" }
        } throws: { error in
            (error as? SyncError)?.message == "Failed to create \(word): there is already a sync with name:accounts"
        }
    }

    @Test func namesAreOptionalButNeverEmpty() {
        #expect(throws: Never.self) { try SyncNames.checkAvailable(nil, for: .syncDown) { _ in true } }
        #expect(throws: Never.self) { try SyncNames.checkAvailable("fresh", for: .syncDown) { _ in false } }
        #expect {
            try SyncNames.checkAvailable("", for: .syncDown) { _ in false }
        } throws: { ($0 as? SyncError)?.code == .invalidName }
    }

    @Test func managerErrorsUseTheReferenceTexts() {
        #expect(SyncError.syncNotFound("accounts").message == "Sync accounts does not exist")
        #expect(SyncError.syncRunning(id: 4).message == "Cannot run runSync 4 - sync is still running")
        #expect(SyncError.managerStopped(state: "STOP_REQUESTED").message == "sync manager has state:STOP_REQUESTED")
        #expect(
            SyncError.ghostCleaningNeedsSyncDown(id: 4, type: .syncUp).message
                == "Cannot run cleanResyncGhosts:4: wrong type:syncUp")
    }

    @Test func errorCodesMatchInCatchPatterns() {
        func classify(_ error: any Error) -> String {
            switch error {
            case SyncError.Code.duplicateName: "duplicate"
            case SyncError.Code.syncNotFound: "missing"
            default: "other"
            }
        }
        #expect(classify(SyncError.duplicateName("x", type: .syncDown)) == "duplicate")
        #expect(classify(SyncError.syncNotFound("x")) == "missing")
        #expect(classify(SyncError.syncRunning(id: 1)) == "other")
    }
}
