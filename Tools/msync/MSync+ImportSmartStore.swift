import ArgumentParser
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import SmartStoreImport
import ToolSupport

extension MSync {
    struct ImportSmartStore: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import-smartstore",
            abstract: "Start a store from a Mobile SDK SmartStore database: soups, records, syncs.",
            discussion: """
                The file is read whole and checked first; an error names the table and row at fault \\
                and writes nothing. The store must be new or empty. An encrypted SmartStore must be \\
                decrypted with SQLCipher's sqlcipher_export first (docs/import-smartstore.md).
                """)

        @Argument(help: "The SmartStore database file (plaintext SQLite).") var database: String
        @OptionGroup var global: GlobalOptions

        func validate() throws {
            guard !database.isEmpty else { throw ValidationError("the database path is empty") }
        }

        func run() throws {
            let progress = PhasedProgress()
            defer { progress.finish() }
            let url = URL(fileURLWithPath: database)
            let label = "reading \(url.lastPathComponent)"
            let read = try reportingFailures {
                try SmartStoreDatabase(contentsOf: url) { step in
                    progress.update(label, UInt64(max(0, step.done)), of: UInt64(max(0, step.total)))
                }
            }
            let storeURL = global.storeURL
            // What this command creates is removed again when the import fails, so a failed
            // import leaves nothing behind; a store that existed is left as it was.
            let existing = try? FileManager.default.contentsOfDirectory(atPath: storeURL.path)
            let store = try openStore(global)
            do {
                try reportingFailures {
                    try store.importSmartStore(read) { step in
                        progress.update("writing the store", UInt64(max(0, step.done)), of: UInt64(max(0, step.total)))
                    }
                }
                try? store.journal.close()
            } catch {
                try? store.journal.close()
                removeCreated(in: storeURL, existing: existing)
                throw error
            }
            progress.finish()
            printSummary(read)
        }

        /// Removes the store directory when it did not exist, its new files when it was empty.
        private func removeCreated(in directory: URL, existing: [String]?) {
            guard let existing else {
                try? FileManager.default.removeItem(at: directory)
                return
            }
            guard existing.isEmpty else { return }
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            }
        }

        private func printSummary(_ read: SmartStoreDatabase) {
            if global.json {
                let soups = read.soups.map { soup -> JSONValue in
                    ["name": .string(soup.name), "records": .number(JSONNumber(Int64(soup.records.count)))]
                }
                let document: JSONValue = [
                    "source": .string(read.source), "soups": .array(soups),
                    "records": .number(JSONNumber(Int64(read.recordCount))),
                    "dirty": .number(JSONNumber(Int64(read.dirtyRecordCount))),
                    "syncs": .array(read.syncs.map(\.json)),
                    "nextEntryId": .number(JSONNumber(read.nextEntryId)),
                    "nextSyncId": .number(JSONNumber(read.nextSyncId)),
                ]
                print(document.serializedString)
            } else {
                print(
                    "imported \(read.source): \(read.soups.count) soups, \(read.recordCount) records "
                        + "(\(read.dirtyRecordCount) dirty), \(read.syncs.count) syncs; entry ids continue at "
                        + "\(read.nextEntryId), sync ids at \(read.nextSyncId)")
            }
        }
    }
}
