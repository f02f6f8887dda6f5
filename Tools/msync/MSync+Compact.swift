import ArgumentParser
import EventJournal
import Foundation
import MobileSync
import ToolSupport

extension MSync {
    struct Compact: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Remove journal history beyond the retention limits; optionally archive it, or write a compact copy.",
            discussion: """
                The limits are the --retain-… options (a week and 8 MiB of history by default). Removed \
                entries are appended to --archive first when given. LMDB reuses the freed pages but never \
                shrinks its files: --copy DEST then writes a copy holding live pages only.
                """)

        @Option(help: "A JSON-lines file the removed entries are appended to before they are removed.")
        var archive: String?
        @Option(help: "Afterwards, write a compact copy of the store to this directory; it must not exist.")
        var copy: String?
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let store = try openStore(global)
            let report = try reportingFailures {
                try store.journal.compact(archive: archive.map { URL(fileURLWithPath: $0) })
            }
            print("compacted: \(report)")
            if let copy {
                let copied = try reportingFailures {
                    try store.journal.writeCompactCopy(to: URL(fileURLWithPath: copy))
                }
                print(
                    "compact copy: \(copy), \(copied.copyBytes) bytes (the store's files: \(copied.sourceBytes) bytes)")
            }
            let statistics = try reportingFailures { try store.journal.statistics() }
            print(
                "store: \(statistics.fileBytes) file bytes, \(statistics.liveBytes) live bytes, "
                    + "\(statistics.checkpointBytes) checkpoint bytes")
        }
    }
}
