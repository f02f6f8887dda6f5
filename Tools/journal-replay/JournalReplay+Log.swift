import ArgumentParser
import Determinism
import EventJournal
import LosslessJSON

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
            var first = true
            if json { writeStandardOutput(Array("[".utf8)) }
            do {
                try journal.read { reader in
                    let last = min(to ?? UInt64.max, try reader.lastSequence)
                    // Asked from below the horizon, the reader answers with an error naming it.
                    let start = max(1, try from ?? reader.firstSequence)
                    guard last >= start, last > 0 else { return }
                    let syncIds = try sync.map { try Self.ids(ofSyncsNamed: $0, in: reader) } ?? []
                    try reader.forEachEntry(in: start...last) { entry in
                        guard matches(entry, syncIds: syncIds) else { return true }
                        if json {
                            if !first { writeStandardOutput(Array(",".utf8)) }
                            writeStandardOutput(Journal.exportLine(for: entry).dropLast())
                        } else {
                            print(describe(entry))
                        }
                        first = false
                        return true
                    }
                }
            } catch {
                throw fail(error)
            }
            if json { writeStandardOutput(Array("]\n".utf8)) }
        }

        private func matches(_ entry: JournalEntry, syncIds: Set<String>) -> Bool {
            if let kind, entry.kind.rawValue != kind { return false }
            if let soup, entry.header["soup"]?.string != soup { return false }
            if let sync {
                let name = entry.header["syncName"]?.string
                let id = entry.header["syncId"]?.description
                if name != sync && id != sync && !(id.map(syncIds.contains) ?? false) { return false }
            }
            return true
        }

        /// The ids of the syncs that the whole journal names `name`: only a sync's state entries
        /// carry its name, and a name can be given again to a new sync once the old one is deleted.
        private static func ids(ofSyncsNamed name: String, in reader: JournalReader) throws -> Set<String> {
            var ids: Set<String> = []
            let (first, last) = (try reader.firstSequence, try reader.lastSequence)
            guard last >= first else { return ids }
            try reader.forEachEntry(in: first...last) { entry in
                if entry.header["syncName"]?.string == name, let id = entry.header["syncId"] {
                    ids.insert(id.description)
                }
                return true
            }
            return ids
        }

        private func describe(_ entry: JournalEntry) -> String {
            let header = entry.header.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            let payload: String
            switch entry.payloadFormat {
            case .json:
                let text = String(decoding: entry.payload, as: UTF8.self)
                payload = text.count > 100 ? String(text.prefix(100)) + "…" : text
            case .binary:
                payload = "\(entry.payload.count) bytes"
            }
            return "#\(entry.sequence) \(entry.timestamp.salesforceFormat) \(entry.kind) \(header) \(payload)"
        }
    }
}
