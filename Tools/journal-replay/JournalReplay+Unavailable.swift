import ArgumentParser
import Foundation

extension JournalReplay {
    /// Replays a recorded session; arrives with recorded sessions (Journals/).
    struct ReplaySession: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "replay-session", abstract: "Replay a recorded session (not available yet).")

        @Argument(help: "The session directory.") var path: String

        func run() throws {
            throw unavailable("replay-session", reason: "recorded sessions are not in this build yet")
        }
    }
}

/// Says plainly that a command exists in the interface but not yet in this build: exit 2.
private func unavailable(_ command: String, reason: String) -> ExitCode {
    FileHandle.standardError.write(Data("journal-replay: \(command) is not available yet: \(reason)\n".utf8))
    return ExitStatus.badInput
}
