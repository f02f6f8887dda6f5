import ArgumentParser
import EventJournal
import LMDBStore
import SyncCore

extension JournalReplay {
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Summarize a store: entries, kinds, time span.")

        @Argument(help: "The store directory.") var store: String
        @Flag(help: "Print one JSON document.") var json = false

        func run() throws {
            let journal = try openStore(store)
            let summary: JSONValue
            do {
                summary = try journal.read { reader in
                    let last = try reader.lastSequence
                    let first = last > 0 ? try reader.entry(at: 1) : nil
                    let newest = last > 0 ? try reader.entry(at: last) : nil
                    var kinds: [String: JSONValue] = [:]
                    for (kind, count) in try reader.kindCounts() {
                        kinds[kind.rawValue] = .number(JSONNumber(Int64(count)))
                    }
                    return [
                        "store": .string(store), "formatVersion": .number(JSONNumber(Int64(Journal.formatVersion))),
                        "lastSequence": .number(JSONNumber(Int64(last))), "kinds": .object(kinds),
                        "firstTimestamp": first.map { .string($0.timestamp.salesforceFormat) } ?? .null,
                        "lastTimestamp": newest.map { .string($0.timestamp.salesforceFormat) } ?? .null,
                        "mapSizeBytes": .number(JSONNumber(Int64(journal.environment.mapSizeBytes))),
                    ]
                }
            } catch {
                throw fail(error)
            }
            if json {
                print(summary.serializedString)
                return
            }
            print("store:          \(store)")
            print("format version: \(Journal.formatVersion)")
            print("entries:        \(summary["lastSequence"]?.number?.text ?? "0")")
            print(
                "time span:      \(summary["firstTimestamp"]?.string ?? "-") … \(summary["lastTimestamp"]?.string ?? "-")"
            )
            for (kind, count) in (summary["kinds"]?.object ?? [:]).sorted(by: { $0.key < $1.key }) {
                print("  \(kind): \(count)")
            }
        }
    }
}
