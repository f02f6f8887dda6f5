import ArgumentParser
import Determinism
import EventJournal
import Foundation
import Logging
import MobileSync
import ToolSupport

extension JournalReplay {
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write the entries as JSON lines on standard output.")

        @Argument(help: storeArgumentHelp) var store: String
        @Option(help: "The last sequence to export.") var to: UInt64?

        func run() throws {
            let journal = try openStore(store)
            do {
                try journal.export(upTo: to) { line in writeStandardOutput(line) }
            } catch {
                throw fail(error)
            }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Append the entries of a JSON-lines export to a store (created when missing).")

        @Argument(help: "The export file.") var file: String
        @Argument(help: storeArgumentHelp) var store: String

        func validate() throws {
            if file.isEmpty { throw ValidationError("the export file path is empty: name a file") }
            try requireStorePath(store)
        }

        func run() throws {
            let storeExisted = FileManager.default.fileExists(atPath: store)
            do {
                let journal = try SyncStore(
                    directory: URL(fileURLWithPath: store), clock: SystemWallClock(),
                    logger: .init(label: "journal-replay")
                ).journal
                let progress = ProgressReporter("importing")
                let imported = try journal.importEntries(from: URL(fileURLWithPath: file)) { done, total in
                    progress.update(done, of: total)
                }
                progress.finish()
                print("imported \(imported) entries into \(store)")
            } catch {
                // A failed import into a new store leaves nothing behind: the store is only what
                // this run made. An existing store keeps what it had (imports are all or nothing
                // per batch, and the file is checked whole before the first batch).
                if !storeExisted { try? FileManager.default.removeItem(atPath: store) }
                throw fail(error)
            }
        }
    }
}
