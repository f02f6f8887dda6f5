import MobileSync
import Testing

@Suite struct SyncDownRunTests {
    static func page(_ number: Int64, total: Int64, max: Int64, sorted: Bool, count: Int) -> SyncDownPage {
        SyncDownPage(
            syncId: 7, soupName: "accounts", pageNumber: number, records: Array("[]".utf8), totalSize: total,
            maxTimeStamp: max, advancesWatermark: sorted, recordCount: Int64(count))
    }

    static func label(_ state: SyncState) -> String {
        "\(state.status.rawValue)(\(state.progress),\(state.totalSize))"
    }

    @Test func fullRunReportsTheReferenceSequence() throws {
        var run = SyncDownRun(try SyncStateTests.soqlState(), startedAt: 10)
        var reports = [Self.label(run.state)]
        for (number, count) in [(Int64(0), 2), (1, 2), (2, 1)] {
            reports += run.apply(Self.page(number, total: 5, max: 100 + number, sorted: true, count: count))
                .map(Self.label)
        }
        reports.append(Self.label(run.finish(.done, at: 20)))
        #expect(reports == ["RUNNING(0,-1)", "RUNNING(0,5)", "RUNNING(40,5)", "RUNNING(80,5)", "DONE(100,5)"])
        #expect(run.state.maxTimeStamp == 102)
        #expect(run.state.startTime == 10)
        #expect(run.state.endTime == 20)
    }

    @Test func emptyResultReportsTotalThenDone() throws {
        var run = SyncDownRun(try SyncStateTests.soqlState(), startedAt: 1)
        let reports = run.apply(Self.page(0, total: 0, max: -1, sorted: true, count: 0)).map(Self.label)
        #expect(reports == ["RUNNING(0,0)"])
        #expect(Self.label(run.finish(.done, at: 2)) == "DONE(100,0)")
        #expect(run.state.maxTimeStamp == -1)
    }

    @Test func sortedTargetKeepsPageWatermarksWhenStopped() throws {
        var state = try SyncStateTests.soqlState()
        state.maxTimeStamp = 50
        var run = SyncDownRun(state, startedAt: 1)
        _ = run.apply(Self.page(0, total: 4, max: 200, sorted: true, count: 2))
        run.finish(.stopped, at: 2)
        #expect(run.state.maxTimeStamp == 200)
        #expect(run.state.progress == 50)
        var resumed = run.state
        resumed.prepareForReSync()
        #expect(resumed.maxTimeStamp == 200, "the watermark never moves back")
        let again = SyncDownRun(resumed, startedAt: 3)
        #expect(again.targetMaxTimeStamp == 199, "the target resumes 1 ms before it, as in Mobile SDK")
        #expect(again.state.maxTimeStamp == 200)
    }

    @Test func unsortedTargetMovesTheWatermarkOnlyWhenDone() throws {
        var state = try SyncStateTests.soqlState()
        state.maxTimeStamp = 50
        var failed = SyncDownRun(state, startedAt: 1)
        _ = failed.apply(Self.page(0, total: 4, max: 300, sorted: false, count: 2))
        #expect(failed.state.maxTimeStamp == 50)
        failed.finish(.failed, at: 2, error: "503")
        #expect(failed.state.maxTimeStamp == 50)
        #expect(failed.state.error == "503")
        var done = SyncDownRun(state, startedAt: 1)
        _ = done.apply(Self.page(0, total: 4, max: 300, sorted: false, count: 4))
        done.finish(.done, at: 2)
        #expect(done.state.maxTimeStamp == 300)
    }

    @Test func aPageWithoutReadableDatesNeverMovesTheWatermarkBack() throws {
        var state = try SyncStateTests.soqlState()
        state.maxTimeStamp = 500
        var run = SyncDownRun(state, startedAt: 1)
        _ = run.apply(Self.page(0, total: 2, max: -1, sorted: true, count: 2))
        run.finish(.done, at: 2)
        #expect(run.state.maxTimeStamp == 500)
    }
}
