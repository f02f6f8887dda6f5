import ArgumentParser
import Foundation

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
            GenerateKey.self, Demo.self,
        ])

    @OptionGroup var global: GlobalOptions

    /// Runs the command, mapping usage errors to exit status 2 (argument parser's default is 64).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(MSyncExit.badInput.rawValue)
            }
            exit(withError: error)
        }
    }
}
