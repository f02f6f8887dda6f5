import ArgumentParser
import Determinism
import EventJournal
import LMDBStore
import LosslessJSON

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
                let statistics = try journal.statistics()
                let report = journal.openingReport
                summary = try journal.read { reader in
                    let last = try reader.lastSequence
                    let first = last > 0 ? try reader.entry(at: try reader.firstSequence) : nil
                    let newest = last > 0 ? try reader.entry(at: last) : nil
                    var kinds: [String: JSONValue] = [:]
                    for (kind, count) in try reader.kindCounts() {
                        kinds[kind.rawValue] = .number(JSONNumber(Int64(count)))
                    }
                    return [
                        "store": .string(store), "formatVersion": .number(JSONNumber(Int64(statistics.formatVersion))),
                        "encrypted": .bool(journal.isEncrypted),
                        "lastSequence": .number(JSONNumber(Int64(last))), "kinds": .object(kinds),
                        // After compaction the last sequence counts every entry ever written;
                        // only those from the horizon on are kept.
                        "entriesWritten": .number(JSONNumber(Int64(last))),
                        "entriesKept": .number(
                            JSONNumber(
                                Int64(
                                    last >= statistics.horizon.firstSequence
                                        ? last - statistics.horizon.firstSequence + 1 : 0))),
                        "firstTimestamp": first.map { .string($0.timestamp.salesforceFormat) } ?? .null,
                        "lastTimestamp": newest.map { .string($0.timestamp.salesforceFormat) } ?? .null,
                        "horizon": .number(JSONNumber(Int64(statistics.horizon.firstSequence))),
                        "fileBytes": .number(JSONNumber(Int64(statistics.fileBytes))),
                        "liveBytes": .number(JSONNumber(Int64(statistics.liveBytes))),
                        "journalFileBytes": .number(JSONNumber(Int64(statistics.journalFileBytes))),
                        "journalEntryBytes": .number(JSONNumber(Int64(statistics.journalEntryBytes))),
                        "projectionFileBytes": .number(JSONNumber(Int64(statistics.projectionFileBytes))),
                        "checkpoints": .array(statistics.checkpointSequences.map { .number(JSONNumber(Int64($0))) }),
                        "checkpointBytes": .number(JSONNumber(Int64(statistics.checkpointBytes))),
                        "projectionsUnsynced": .bool(statistics.projectionsHaveUnsyncedWrites),
                        "projectionsOnOpen": .string(report.projections.description),
                        "foldedOnOpen": .number(JSONNumber(Int64(report.foldedEntries))),
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
