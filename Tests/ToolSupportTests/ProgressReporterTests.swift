import Testing
import ToolSupport

/// `ProgressReporter` draws a bar on a terminal and prints a line per tenth elsewhere.
@Suite struct ProgressReporterTests {
    final class Output {
        var text = ""
    }

    @Test func printsOneLinePerTenthWhenNotATerminal() {
        let output = Output()
        let progress = ProgressReporter("importing", isTerminal: false) { output.text += $0 }
        for done in stride(from: 0, through: 1000, by: 7) { progress.update(UInt64(done), of: 1000) }
        progress.update(UInt64(1000), of: UInt64(1000))
        progress.finish()
        let lines = output.text.split(separator: "\n")
        #expect(lines.count == 11)
        #expect(lines.first == "importing: 0% (0/1000)")
        #expect(lines.last == "importing: 100% (1000/1000)")
    }

    @Test func redrawsABarInPlaceOnATerminalAndEndsItsLine() {
        let output = Output()
        let progress = ProgressReporter("syncing", isTerminal: true) { output.text += $0 }
        progress.update(Int64(1), of: 4)
        progress.update(Int64(4), of: 4)
        progress.finish()
        let frames = output.text.split(separator: "\r", omittingEmptySubsequences: true)
        #expect(frames.count == 2)
        #expect(frames[0] == "syncing [#######.......................] 25% 1/4")
        #expect(frames[1] == "syncing [##############################] 100% 4/4\n")
    }

    @Test func anUnknownTotalShowsTheCountWithoutAPercentage() {
        let output = Output()
        let progress = ProgressReporter("fetching", isTerminal: true) { output.text += $0 }
        progress.update(Int64(5), of: -1)
        #expect(output.text == "\rfetching [??????????????????????????????] 5/?")
    }
}
