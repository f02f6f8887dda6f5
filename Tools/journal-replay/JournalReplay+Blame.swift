import ArgumentParser
import Determinism
import EventJournal
import LosslessJSON
import MobileSync
import Soups
import ToolSupport

extension JournalReplay {
    struct Blame: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the entries that shaped one record, and what each did.")

        @Argument(help: storeArgumentHelp) var store: String
        @Argument(help: "The soup.") var soup: String
        @Argument(help: "The record: the value of its Id field, or its _soupEntryId.") var id: String
        @Flag(help: "Print a JSON array of events.") var json = false

        func run() throws {
            let syncStore: SyncStore
            let history: RecordHistory
            do {
                syncStore = try openSyncStore(store)
                history = try RecordHistory(journal: syncStore.journal, soup: soup, id: id)
            } catch let error as ValidationError {
                throw error
            } catch {
                throw fail(error)
            }
            let journal = syncStore.journal
            guard !history.events.isEmpty else {
                // Compaction can remove every entry that touched a record that still exists.
                if let horizon = try? journal.horizon(), horizon.isCompacted, let record = currentRecord(syncStore) {
                    print(
                        "every entry that touched this record lies before the horizon, entry \(horizon.firstSequence) "
                            + "(compacted away): its visible history starts there, as it is now:")
                    print(record.serializedString)
                    return
                }
                throw fail(
                    BlameFailure(message: "no entry of soup '\(soup)' touched a record with Id or _soupEntryId '\(id)'")
                )
            }
            if json {
                writeStandardOutput(history.eventsJSON.serialized() + [UInt8(ascii: "\n")])
            } else {
                // The history starts at the horizon: say so, so an empty start is not read as
                // a record that came from nowhere.
                if let horizon = try? journal.horizon(), horizon.isCompacted {
                    print("(entries before \(horizon.firstSequence) were compacted away; the history starts there)")
                }
                for event in history.events { print(RecordHistory.line(for: event)) }
            }
        }
    }
}

extension JournalReplay.Blame {
    /// The record as the soup holds it now, by its `Id` or `_soupEntryId`, or `nil`.
    func currentRecord(_ store: SyncStore) -> JSONValue? {
        if let entryId = try? store.soups.lookupSoupEntryId(soup, path: "Id", value: .string(id)),
            let record = try? store.soups.retrieve(soup, ids: [entryId]).first
        {
            return record
        }
        guard let entryId = Int64(id) else { return nil }
        return try? store.soups.retrieve(soup, ids: [entryId]).first
    }
}

/// A blame that found nothing: an unknown soup or record is bad input, not a store error.
struct BlameFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
