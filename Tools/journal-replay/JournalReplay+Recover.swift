import ArgumentParser
import Determinism
import EventJournal
import Foundation
import Logging
import MobileSync
import ToolSupport

extension JournalReplay {
    struct Recover: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start a new journal from the projections' state when the journal lost entries.",
            discussion: """
                Use it only when opening the store says the journal lost entries (deleted, truncated, or \
                replaced by an older copy) or that its file is damaged, and no backup of the journal is at hand. Soups, local changes, \
                pending uploads and sync states are kept; history restarts at the projections' last entry. \
                The damaged journal and old checkpoints are moved into STORE/damaged-N/, never deleted. \
                An encrypted store is recovered with its key from SYNCJOURNAL_KEY or SYNCJOURNAL_KEY_FILE; \
                a wrong key is refused with nothing changed.
                """)

        @Argument(help: storeArgumentHelp) var store: String

        func validate() throws {
            try requireStorePath(store)
        }

        func run() throws {
            do {
                var options = JournalOptions()
                // journal-replay's commands take no key option: the key comes from the environment.
                options.encryption = try KeyOptions.key(file: nil, environment: ProcessInfo.processInfo.environment)
                let report = try SyncStore.recoverJournal(
                    directory: URL(fileURLWithPath: store), clock: SystemWallClock(), options: options,
                    logger: Logger(label: "journal-replay"))
                print(report.description)
            } catch {
                throw fail(error)
            }
        }
    }
}
