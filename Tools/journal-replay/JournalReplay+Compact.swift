import ArgumentParser
import EventJournal
import Foundation

extension JournalReplay {
    struct Compact: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a compact copy of a store: its live pages only, checkpoints included.",
            discussion: """
                LMDB files never shrink. The copy holds only live data and opens as the same store; \
                the source is left as it is, and writers may go on meanwhile (their entries are folded \
                when the copy is opened). DEST must not exist.
                """)

        @Argument(help: storeArgumentHelp) var store: String
        @Option(help: "The directory to write the copy to; it must not exist.") var copy: String

        func run() throws {
            let report: Journal.CompactCopyReport
            do {
                report = try openStore(store).writeCompactCopy(to: URL(fileURLWithPath: copy))
            } catch {
                throw fail(error)
            }
            print(
                "ok: \(report.lastSequence) entries and \(report.checkpointCount) checkpoint(s) copied to \(copy); "
                    + "journal and projections \(report.sourceBytes) bytes, copy \(report.copyBytes) bytes")
        }
    }
}
