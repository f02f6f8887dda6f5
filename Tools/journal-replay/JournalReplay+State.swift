import ArgumentParser
import EventJournal
import Foundation
import LosslessJSON
import ToolSupport

extension JournalReplay {
    struct State: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the projections (soups, flags, watermarks, ghosts) as they were after an entry.")

        @Argument(help: storeArgumentHelp) var store: String
        @Option(name: .customLong("as-of"), help: "The last entry to include (default: the newest).")
        var asOf: UInt64?
        @Option(help: "Only this soup.") var soup: String?
        @Flag(help: "Print one JSON document.") var json = false

        func run() throws {
            let journal = try openStore(store)
            let description: JSONValue
            do {
                // The library answers a question past the end as of the end; a person asking for
                // entry 999 of 32 has the wrong store or number, and is told so.
                if let asOf, asOf > (try journal.lastSequence()) {
                    FileHandle.standardError.write(
                        Data(
                            ("journal-replay: --as-of \(asOf) is past the journal's last entry, "
                                + "\(try journal.lastSequence())\n").utf8))
                    throw ExitStatus.badInput
                }
                description = try StateDescription.json(of: journal, asOf: asOf, soup: soup)
            } catch let exit as ExitCode {
                throw exit
            } catch {
                throw fail(error)
            }
            if json {
                print(description.serializedString)
            } else {
                print("state as of entry \(description["asOf"]?.number?.text ?? "0")")
                for (name, state) in (description["projections"]?.object ?? [:]).sorted(by: { $0.key < $1.key }) {
                    print("\(name): \(state.serializedString)")
                }
            }
        }
    }
}
