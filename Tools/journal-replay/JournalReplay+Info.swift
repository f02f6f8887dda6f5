import ArgumentParser
import Determinism
import EventJournal
import LMDBStore
import LosslessJSON
import ToolSupport

extension JournalReplay {
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Summarize a store: entries, kinds, time span, files, checkpoints and recovery.")

        @Argument(help: storeArgumentHelp) var store: String
        @Flag(help: "Print one JSON document.") var json = false

        func run() throws {
            let journal = try openStore(store)
            let summary: JSONValue
            do {
                summary = try StoreSummary.json(of: journal, store: store)
            } catch {
                throw fail(error)
            }
            if json {
                print(summary.serializedString)
                return
            }
            print("store:          \(store)")
            print("format version: \(summary["formatVersion"]?.number?.text ?? "")")
            print(
                "encryption:     "
                    + (summary["encrypted"] == .bool(true)
                        ? "AES-GCM, per-store keys (decision 0006)" : "none: the files are plaintext"))
            print(
                "entries:        \(summary["entriesKept"]?.number?.text ?? "0") kept, "
                    + "\(summary["entriesWritten"]?.number?.text ?? "0") ever written")
            let horizon = summary["horizon"]?.number?.text ?? "1"
            print(
                "horizon:        entry \(horizon)\(horizon == "1" ? " (never compacted)" : " (older entries compacted away)")"
            )
            print(
                "size:           \(summary["fileBytes"]?.number?.text ?? "0") file bytes, "
                    + "\(summary["liveBytes"]?.number?.text ?? "0") live bytes (journal and projections)")
            print("journal file:   \(summary["journalFileBytes"]?.number?.text ?? "0") bytes")
            print(
                "projections:    \(summary["projectionFileBytes"]?.number?.text ?? "0") bytes, \(summary["projectionsOnOpen"]?.string ?? "") on open"
            )
            let checkpoints = (summary["checkpoints"]?.array ?? []).compactMap { $0.number?.text }
            print("checkpoints:    \(checkpoints.isEmpty ? "none" : checkpoints.joined(separator: ", "))")
            print(
                "time span:      \(summary["firstTimestamp"]?.string ?? "-") … \(summary["lastTimestamp"]?.string ?? "-")"
            )
            for (kind, count) in (summary["kinds"]?.object ?? [:]).sorted(by: { $0.key < $1.key }) {
                print("  \(kind): \(count)")
            }
        }
    }
}
