import ArgumentParser
import Determinism
import EventJournal
import LosslessJSON
import ToolSupport

extension JournalReplay {
    struct Log: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List entries, optionally filtered.")

        @Argument(help: storeArgumentHelp) var store: String
        @Option(help: "The first sequence to show (the journal's horizon by default).") var from: UInt64?
        @Option(help: "The last sequence to show.") var to: UInt64?
        @Option(help: "Only entries of this kind.") var kind: String?
        @Option(help: "Only entries whose header names this soup.") var soup: String?
        @Option(
            help: """
                Only entries of this sync, by id or by name (a name also selects the entries \
                that name only its id, such as fetched pages).
                """) var sync: String?
        @Flag(help: "Print a JSON array of entries.") var json = false

        func validate() throws {
            if let to, let from, to < from { throw ValidationError("--to must not be less than --from") }
        }

        func run() throws {
            let journal = try openStore(store)
            let log = JournalLog(kind: kind, soup: soup, sync: sync, from: from, to: to)
            do {
                if json {
                    writeStandardOutput(try log.jsonArray(in: journal) + Array("\n".utf8))
                } else {
                    try log.forEachEntry(in: journal) { print(JournalLog.line(for: $0)) }
                }
            } catch {
                throw fail(error)
            }
        }
    }
}
