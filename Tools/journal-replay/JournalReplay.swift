import ArgumentParser
import Determinism
import EventJournal
import Foundation
import Logging
import MobileSync
import Soups
import ToolSupport

@main
struct JournalReplay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal-replay",
        abstract: "Inspect, check, export and import SyncJournal journals.",
        subcommands: [
            Info.self, Log.self, State.self, Verify.self, Rebuild.self, Compact.self, Export.self, Import.self,
            Recover.self, Diff.self,
            Blame.self, Serve.self,
            ReplaySession.self,
            Simulate.self,
        ])

    /// Runs the command, mapping usage errors to exit status 2 as scripts expect (argument
    /// parser's default is 64).
    static func main() async {
        // A damaged page of the projections ends the command with one line and status 3, not
        // a signal; the next open rebuilds them (decision 0013).
        Journal.endProcessOnProjectionDamage(status: ExitStatus.storeError.rawValue, prefix: "journal-replay:")
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                // One line, as for every other failure; `--help` shows the usage.
                FileHandle.standardError.write(
                    Data(("journal-replay: " + FailureLine.oneLine(message(for: error)) + "\n").utf8))
                Foundation.exit(ExitStatus.badInput.rawValue)
            }
            // Help, an explicit exit status, or an error the command already reported.
            if error is ExitCode || code == .success { exit(withError: error) }
            // Anything else escaped a command's own reporting: still one line and a status.
            Foundation.exit(fail(error).rawValue)
        }
    }
}

/// Exit statuses shared by the subcommands (the same as msync's).
enum ExitStatus {
    static let divergence = ExitCode(1)
    static let badInput = ExitCode(2)
    static let storeError = ExitCode(3)
}

/// What every subcommand's STORE argument accepts.
let storeArgumentHelp = ArgumentHelp(
    "The store directory (what msync --store names), or the journal/ folder inside it.", valueName: "store")

/// Refuses an empty path: it would name the current directory (exit 2).
func requireStorePath(_ path: String) throws {
    guard !path.isEmpty else { throw ValidationError("the store path is empty: name a store directory") }
}

/// Opens an existing store, turning errors into one clear line and exit status 3.
///
/// Only the writing verbs (`compact`, `rebuild`, `import`, `recover`) pass `writing`. The
/// others open the store read-only and leave every byte of it as it was (decision 0024): they
/// refuse a store of an older format instead of converting it, and fold entries that the
/// projections have not folded in a scratch copy.
func openStore(_ path: String, writing: Bool = false) throws -> Journal {
    do {
        return try openSyncStore(path, writing: writing).journal
    } catch let error as ValidationError {
        throw error
    } catch {
        throw fail(error)
    }
}

/// Opens an existing store with every projection, read-only unless `writing` (decision 0024),
/// showing the progress of a long recovery, catch-up or conversion on standard error.
func openSyncStore(_ path: String, writing: Bool = false) throws -> SyncStore {
    try requireStorePath(path)
    let layout = StoreLayout(directory: URL(fileURLWithPath: path))
    try layout.requireStore()
    if !writing, layout.holdsFormatOneStore {
        throw JournalError(
            .needsMigration,
            "\(layout.directory.path) is a store of format 1, which this verb reads only after conversion; "
                + "convert it with `journal-replay rebuild \(layout.directory.path)` (or any msync command)")
    }
    let progress = PhasedProgress()
    defer { progress.finish() }
    var options = JournalOptions()
    options.isReadOnly = !writing
    // journal-replay's commands take no key option: the key comes from the environment.
    options.encryption = try KeyOptions.key(file: nil, environment: ProcessInfo.processInfo.environment)
    options.openingProgress = { step in progress.update("\(step.phase.rawValue) the store", step.folded, of: step.total)
    }
    return try SyncStore.openExisting(
        directory: URL(fileURLWithPath: path), clock: SystemWallClock(), options: options,
        logger: Logger(label: "journal-replay"))
}

/// Prints one line for `error` on standard error and returns the exit status to throw.
func fail(_ error: any Error) -> ExitCode {
    // A damaged journal is the store's trouble whatever the verb: its own line, status 3.
    if let damage = DamagedJournal.find(in: error) {
        FileHandle.standardError.write(Data("journal-replay: \(FailureLine.text(for: damage))\n".utf8))
        return ExitStatus.storeError
    }
    FileHandle.standardError.write(Data("journal-replay: \(FailureLine.text(for: error))\n".utf8))
    if let journalError = error as? JournalError, journalError.code == .malformedExport { return ExitStatus.badInput }
    if error is BlameFailure { return ExitStatus.badInput }
    if let soupError = error as? SoupError, soupError.code != .storage { return ExitStatus.badInput }
    return ExitStatus.storeError
}

func writeStandardOutput(_ bytes: [UInt8]) {
    FileHandle.standardOutput.write(Data(bytes))
}
