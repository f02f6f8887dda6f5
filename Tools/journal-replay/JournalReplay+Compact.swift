import ArgumentParser
import EventJournal
import Foundation
import ToolSupport

extension JournalReplay {
    struct Compact: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compact a store's journal to a retention policy, or write a compact copy of it.",
            discussion: """
                Without --copy, removes the history beyond the --retain-… limits (the library's default \
                for apps when none is given), after appending it to --archive when given. With --copy, \
                writes a copy of the store holding its live pages only (LMDB files never shrink) and \
                leaves the source as it is; writers may go on meanwhile. DEST must not exist.
                """)

        @Argument(help: storeArgumentHelp) var store: String
        @Option(help: "Write a compact copy to this directory instead; it must not exist.") var copy: String?
        @Option(help: "A JSON-lines file the removed entries are appended to before they are removed.")
        var archive: String?
        @OptionGroup(title: "History to keep") var retention: RetentionOptions

        func validate() throws {
            try requireStorePath(store)
            if copy == "" { throw ValidationError("--copy is empty: name the directory to write the copy to") }
            if archive == "" { throw ValidationError("--archive is empty: name the archive file") }
            if copy != nil, archive != nil {
                throw ValidationError("--archive applies to compaction in place, not to --copy")
            }
        }

        func run() throws {
            let journal = try openStore(store, writing: true)
            do {
                if let copy {
                    let report = try journal.writeCompactCopy(to: URL(fileURLWithPath: copy))
                    print(
                        "ok: \(report.lastSequence) entries and \(report.checkpointCount) checkpoint(s) copied to "
                            + "\(copy); journal and projections \(report.sourceBytes) bytes, copy \(report.copyBytes) bytes"
                    )
                    return
                }
                let report = try journal.compact(
                    retention: retention.policy, archive: archive.map { URL(fileURLWithPath: $0) })
                let statistics = try journal.statistics()
                print(
                    "ok: \(report); \(statistics.fileBytes) file bytes, \(statistics.liveBytes) live bytes, "
                        + "\(statistics.checkpointBytes) checkpoint bytes")
            } catch {
                throw fail(error)
            }
        }
    }
}
