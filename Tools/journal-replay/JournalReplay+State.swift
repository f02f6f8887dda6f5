import ArgumentParser
import EventJournal
import LosslessJSON

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
                let filter = soup.map { ["soup": $0] } ?? [:]
                description = try journal.withState(asOf: asOf ?? UInt64.max) { state, sequence in
                    var projections: [String: JSONValue] = [:]
                    for projection in journal.projections {
                        projections[projection.name] = try projection.describeState(in: state, filter: filter)
                    }
                    return ["asOf": .number(JSONNumber(Int64(sequence))), "projections": .object(projections)]
                }
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
