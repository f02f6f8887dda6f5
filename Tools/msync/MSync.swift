import ArgumentParser
import EventJournal
import Foundation
import LMDBStore
import ToolSupport

@main
struct MSync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "msync",
        abstract: "Drive a SyncJournal store from the shell: soups, records, queries, syncs and the demo.",
        subcommands: [
            RegisterSoup.self, AlterSoup.self, ClearSoup.self, DropSoup.self, ListSoups.self, Create.self,
            Update.self, Delete.self, Upsert.self, Get.self, Query.self, SmartQuery.self, Dirty.self, Setup.self,
            SyncDown.self,
            SyncUp.self, Resync.self, CleanGhosts.self, Status.self, DeleteSync.self, Compact.self, RotateKey.self,
            GenerateKey.self, Demo.self, Inspect.self, ImportSmartStore.self, Conflicts.self, Resolve.self,
        ])

    @OptionGroup var global: GlobalOptions

    /// Runs the command, mapping usage errors to exit status 2 (argument parser's default is 64).
    static func main() async {
        // A damaged page of the projections ends the command with one line and status 3, not
        // a signal; the next command rebuilds them (decision 0013).
        Journal.endProcessOnProjectionDamage(status: MSyncExit.storeError.rawValue, prefix: "msync:")
        // Crash tests name a seeded point at which this process kills itself (CrashPoint); it
        // is unset in every other use.
        do {
            try CrashPlan.arm(fromEnvironment: ProcessInfo.processInfo.environment)
        } catch {
            FileHandle.standardError.write(Data("msync: \(error)\n".utf8))
            Foundation.exit(MSyncExit.badInput.rawValue)
        }
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
                FileHandle.standardError.write(Data(("msync: " + FailureLine.oneLine(message(for: error)) + "\n").utf8))
                Foundation.exit(MSyncExit.badInput.rawValue)
            }
            // Help, an explicit exit status, or an error the command already reported.
            if error is ExitCode || code == .success { exit(withError: error) }
            // Anything else escaped a command's own reporting: still one line and a status.
            Foundation.exit(fail(error).rawValue)
        }
    }
}
