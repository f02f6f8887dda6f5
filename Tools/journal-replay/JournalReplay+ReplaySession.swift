import ArgumentParser
import Foundation
import SyncReplay
import ToolSupport

extension JournalReplay {
    /// Replays a recorded session (`Journals/<area>/<case>/`) in both modes: the journal export
    /// imported into a fresh store, and the operations run through the engine against the
    /// recorded answers.
    struct ReplaySession: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "replay-session",
            abstract: "Replay a recorded session in both modes; exit 1 if the replay differs from the recording.")

        @Argument(help: "The session directory, such as Journals/sync-down/paging.") var path: String

        func validate() throws {
            if path.isEmpty { throw ValidationError("the session path is empty: name a session directory") }
        }

        func run() async throws {
            let session = RecordedSession(directory: URL(fileURLWithPath: path))
            let report: RecordedSession.Report
            do {
                report = try await session.replay()
            } catch let error as SessionReplayError {
                let message = error.isDivergence ? "replay differs: \(error.message)" : error.message
                FileHandle.standardError.write(Data("journal-replay: \(FailureLine.oneLine(message))\n".utf8))
                throw error.isDivergence ? ExitStatus.divergence : ExitStatus.badInput
            } catch {
                throw fail(error)
            }
            print(
                "ok: \(path): \(report.requestCount) requests and \(report.entryCount) journal entries replayed; "
                    + "projections identical in both modes")
        }
    }
}
