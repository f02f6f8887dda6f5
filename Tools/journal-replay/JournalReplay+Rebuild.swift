import ArgumentParser
import EventJournal
import Foundation
import Logging
import MobileSync
import ToolSupport

extension JournalReplay {
    struct Rebuild: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rebuild every projection from the journal, in place.")

        @Argument(help: storeArgumentHelp) var store: String

        func run() throws {
            let journal = try openStore(store, writing: true)
            do {
                let progress = ProgressReporter("rebuilding")
                try journal.rebuild { done, total in progress.update(done, of: total) }
                progress.finish()
                print("rebuilt the projections from \(try journal.lastSequence()) entries")
            } catch {
                throw fail(error)
            }
        }
    }
}
