import LosslessJSON
import MobileSync
import Testing

@Suite struct SyncStateTests {
    static func soqlState(id: Int64 = 7, name: String? = "accounts") throws -> SyncState {
        let target = try SyncDownTargetDescriptor(
            .soql(query: "select Id,LastModifiedDate from Account order by LastModifiedDate"))
        return SyncState(
            id: id, name: name, target: .syncDown(target), options: SyncOptions(mergeMode: .leaveIfChanged),
            soupName: "accounts")
    }

    @Test func newStateHasMobileSDKCreationValues() throws {
        let state = try Self.soqlState()
        #expect(state.status == .new)
        #expect(state.progress == 0)
        #expect(state.totalSize == -1)
        #expect(state.maxTimeStamp == -1)
        #expect(state.startTime == 0)
        #expect(state.endTime == 0)
        #expect(state.error == "")
        #expect(state.type == .syncDown)
    }

    @Test func serializesWithMobileSDKKeys() throws {
        let json = try Self.soqlState().json
        #expect(
            Set(json.object.map { Array($0.keys) } ?? []) == [
                "_soupEntryId", "type", "name", "target", "options", "soupName", "status", "progress", "totalSize",
                "maxTimeStamp", "startTime", "endTime", "error",
            ])
        #expect(json["type"] == "syncDown")
        #expect(json["status"] == "NEW")
        #expect(json["options"] == ["mergeMode": "LEAVE_IF_CHANGED"])
        #expect(try Self.soqlState(name: nil).json["name"] == nil)
    }

    @Test func roundTripsThroughJSONIncludingFailures() throws {
        var state = try Self.soqlState()
        state.start(at: 1000)
        state.recordTotalSize(10)
        state.failures.record(.init(recordId: "001", message: "INVALID_FIELD"))
        state.finish(.failed, at: 2500, error: "503 Service Unavailable")
        let text = state.json.serializedString
        let again = try SyncState(json: try JSONValue(parsing: text))
        #expect(again == state)
        #expect(again.endTime == 2500)
        #expect(again.startTime == 1000)
        #expect(state.json["failures"] == ["count": 1, "sample": [["id": "001", "message": "INVALID_FIELD"]]])
    }

    @Test func syncUpStateRoundTrips() throws {
        var target = SyncUpTargetDescriptor(.batch)
        target.createFieldlist = ["Name"]
        let state = SyncState(
            id: 3, target: .syncUp(target), options: SyncOptions(mergeMode: .overwrite, fieldlist: ["Name"]),
            soupName: "accounts")
        let again = try SyncState(json: state.json)
        #expect(again.target == state.target)
        #expect(again.options == state.options)
        #expect(again.type == .syncUp)
        #expect(state.json["target"]?["iOSImpl"] == "SFBatchSyncUpTarget")
        #expect(again.syncDownTarget == nil)
    }

    @Test func missingCountersAndMergeModeTakeMobileSDKDefaults() throws {
        let json: JSONValue = [
            "_soupEntryId": 4, "type": "syncDown", "soupName": "s",
            "target": ["type": "sosl", "query": "FIND {a}"], "options": ["fieldlist": ["Name"]],
        ]
        let state = try SyncState(json: json)
        #expect(state.options == SyncOptions(mergeMode: .overwrite, fieldlist: ["Name"]))
        #expect(state.status == .new)
        #expect(state.totalSize == -1)
        #expect(state.maxTimeStamp == -1)
        #expect(state.endTime == 0)
    }

    @Test(arguments: [
        (#"{"type":"syncDown","soupName":"s","target":{"type":"sosl","query":"q"}}"#, "_soupEntryId"),
        (#"{"_soupEntryId":1,"type":"sideways","soupName":"s","target":{}}"#, "\"type\""),
        (
            #"{"_soupEntryId":1,"type":"syncDown","soupName":"s","target":{"type":"sosl","query":"q"},"status":"LOST"}"#,
            "\"status\""
        ),
        (
            #"{"_soupEntryId":1,"type":"syncDown","soupName":"s","target":{"type":"sosl","query":"q"},"progress":140}"#,
            "\"progress\""
        ),
        (#"{"_soupEntryId":1,"type":"syncDown","target":{"type":"sosl","query":"q"}}"#, "\"soupName\""),
        (
            #"{"_soupEntryId":1,"type":"syncDown","soupName":"s","target":{"type":"sosl","query":"q"},"options":{"mergeMode":"MAYBE"}}"#,
            "mergeMode"
        ),
    ])
    func malformedStatesThrowErrorsNamingTheKey(text: String, fragment: String) throws {
        let json = try JSONValue(parsing: text)
        #expect {
            try SyncState(json: json)
        } throws: { ($0 as? SyncError)?.message.contains(fragment) == true }
    }

    @Test func progressFollowsTheReferenceSequence() throws {
        var state = try Self.soqlState()
        var reports: [String] = []
        func report() { reports.append("\(state.status.rawValue)(\(state.progress),\(state.totalSize))") }
        state.start(at: 1)
        report()
        state.recordTotalSize(5)
        report()
        var saved: Int64 = 0
        for pageSize: Int64 in [2, 2, 1] {
            saved += pageSize
            if state.recordSaved(count: saved) { report() }
        }
        state.finish(.done, at: 2)
        report()
        #expect(reports == ["RUNNING(0,-1)", "RUNNING(0,5)", "RUNNING(40,5)", "RUNNING(80,5)", "DONE(100,5)"])
    }

    @Test func emptyResultReportsNoIntermediateProgress() throws {
        var state = try Self.soqlState()
        state.start(at: 1)
        state.recordTotalSize(0)
        let reported = state.recordSaved(count: 0)
        #expect(!reported)
        state.finish(.done, at: 2)
        #expect(state.progress == 100)
    }

    @Test(arguments: [SyncStatus.failed, .stopped])
    func failureAndStopKeepProgress(status: SyncStatus) throws {
        var state = try Self.soqlState()
        state.start(at: 1)
        state.recordTotalSize(4)
        state.recordSaved(count: 1)
        state.finish(status, at: 9, error: status == .failed ? "boom" : "")
        #expect(state.progress == 25)
        #expect(state.endTime == 9)
    }

    /// The state keeps its watermark; only the target of a STOPPED sync starts 1 ms before it.
    @Test(arguments: [
        (SyncStatus.stopped, Int64(1_000), Int64(999)), (.stopped, -1, -1), (.stopped, 0, -1),
        (.failed, 1_000, 1_000), (.done, 1_000, 1_000),
    ])
    func reSyncResumesAStoppedSyncsTargetOneMillisecondBeforeItsWatermark(
        status: SyncStatus, watermark: Int64, expected: Int64
    )
        throws
    {
        var state = try Self.soqlState()
        state.status = status
        state.maxTimeStamp = watermark
        state.totalSize = 50
        state.prepareForReSync()
        #expect(state.maxTimeStamp == watermark)
        #expect(state.totalSize == -1)
        let run = SyncDownRun(state, startedAt: 1)
        #expect(run.targetMaxTimeStamp == expected)
        #expect(run.state.maxTimeStamp == watermark)
    }

    @Test func aRunningSyncFoundAtOpenBecomesStopped() throws {
        var running = try Self.soqlState()
        running.start(at: 1)
        running.stopAfterInterruptedRun()
        #expect(running.status == .stopped)
        var done = try Self.soqlState()
        done.finish(.done, at: 1)
        done.stopAfterInterruptedRun()
        #expect(done.status == .done)
    }

    @Test func failureSampleIsBoundedButCountIsExact() {
        var summary = SyncState.FailureSummary()
        for index in 0..<50 { summary.record(.init(recordId: "r\(index)", message: "x")) }
        #expect(summary.count == 50)
        #expect(summary.sample.count == SyncState.FailureSummary.sampleCountMax)
    }

    @Test func optionsRequireAMergeModeWhenParsedAlone() {
        #expect(throws: SyncError.self) { try SyncOptions(json: ["fieldlist": ["Name"]]) }
        #expect(throws: Never.self) { try SyncOptions(json: ["mergeMode": "LEAVE_IF_CHANGED"]) }
    }
}
