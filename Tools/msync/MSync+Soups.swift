import ArgumentParser
import Determinism
import EventJournal
import Foundation
import Logging
import LosslessJSON
import MobileSync
import Soups
import ToolSupport

/// Opens the store named by the global options, creating it when missing. Long recoveries and
/// conversions show their progress on standard error.
func openStore(_ global: GlobalOptions) throws -> SyncStore {
    try reportingFailures {
        let progress = PhasedProgress()
        defer { progress.finish() }
        var options = JournalOptions()
        options.retention = global.retention.policy
        options.encryption = try global.key.key()
        options.openingProgress = { step in
            progress.update("\(step.phase.rawValue) the store", step.folded, of: step.total)
        }
        return try SyncStore(
            directory: global.storeURL, clock: SystemWallClock(), options: options, logger: Logger(label: "msync"))
    }
}

/// Prints records: one JSON document with `--json`, else one compact record per line.
func printRecords(_ records: [JSONValue], json: Bool) {
    if json {
        print(JSONValue.array(records).serializedString)
    } else {
        for record in records { print(record.serializedString) }
    }
}

/// Parses a command-line JSON argument that must be an object.
func parseObject(_ text: String, what: String) throws -> [String: JSONValue] {
    let value: JSONValue
    do {
        value = try JSONValue(parsing: text)
    } catch {
        throw fail(SoupError(.notAnObject, "the \(what) is not valid JSON: \(error)"))
    }
    guard let object = value.object else {
        throw fail(SoupError(.notAnObject, "the \(what) must be a JSON object, got \(value.serializedString)"))
    }
    return object
}

/// Finds a record's `_soupEntryId` from the value of the soup's `Id` field, or from the entry id.
func resolveEntryId(_ store: SyncStore, soup: String, id: String) throws -> Int64 {
    try reportingFailures {
        let specs = try store.soups.indexSpecs(of: soup)
        if specs.contains(where: { $0.path == "Id" }),
            let entryId = try store.soups.lookupSoupEntryId(soup, path: "Id", value: .string(id))
        {
            return entryId
        }
        if let entryId = Int64(id), !(try store.soups.retrieve(soup, ids: [entryId]).isEmpty) {
            return entryId
        }
        throw SoupError(.unknownEntry, "soup '\(soup)' has no record with Id or _soupEntryId '\(id)'")
    }
}

extension MSync {
    struct ListSoups: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "soups", abstract: "List the soups.")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            let store = try openStore(global)
            let names = try reportingFailures { try store.soups.soupNames() }
            if global.json {
                print(JSONValue.array(names.map(JSONValue.string)).serializedString)
            } else {
                for name in names { print(name) }
            }
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a record locally (local id, __local__ and __locally_created__ set).")

        @Argument(help: "The soup.") var soup: String
        @Argument(help: "The record, a JSON object.") var record: String
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let store = try openStore(global)
            let fields = try parseObject(record, what: "record")
            let saved = try reportingFailures { try store.soups.createLocally(soup, .object(fields)) }
            print(saved.serializedString)
        }
    }

    struct Upsert: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create or replace a record as SmartStore's upsert does (no local-change flags).",
            discussion: """
                With --external-id-path the record replaces the one whose indexed value at that path \
                is the same, or is created when none has it; the path must be indexed, the record \
                must have a value there, and at most one record may hold it. Without it, a record \
                with a _soupEntryId replaces that record and one without is created.
                """)

        @Argument(help: "The soup.") var soup: String
        @Argument(help: "The record, a JSON object.") var record: String
        @Option(help: "An indexed path whose value identifies the record to replace.") var externalIdPath: String?
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let store = try openStore(global)
            let fields = try parseObject(record, what: "record")
            let saved = try reportingFailures {
                try store.soups.upsert(soup, .object(fields), externalIdPath: externalIdPath)
            }
            print(saved.serializedString)
        }
    }

    struct Update: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge fields into a record locally (__local__ and __locally_updated__ set).")

        @Argument(help: "The soup.") var soup: String
        @Argument(help: "The record's Id or _soupEntryId.") var id: String
        @Argument(help: "The fields to change, a JSON object.") var changes: String
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let store = try openStore(global)
            let fields = try parseObject(changes, what: "changes")
            let entryId = try resolveEntryId(store, soup: soup, id: id)
            let saved = try reportingFailures { try store.soups.updateLocally(soup, entryId: entryId, changes: fields) }
            print(saved.serializedString)
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a record locally (__local__ and __locally_deleted__ set; sync up removes it).")

        @Argument(help: "The soup.") var soup: String
        @Argument(help: "The record's Id or _soupEntryId.") var id: String
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let store = try openStore(global)
            let entryId = try resolveEntryId(store, soup: soup, id: id)
            let saved = try reportingFailures { try store.soups.deleteLocally(soup, entryId: entryId) }
            print(saved.serializedString)
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print one record.")

        @Argument(help: "The soup.") var soup: String
        @Argument(help: "The record's Id or _soupEntryId.") var id: String
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let store = try openStore(global)
            let entryId = try resolveEntryId(store, soup: soup, id: id)
            let records = try reportingFailures { try store.soups.retrieve(soup, ids: [entryId]) }
            guard let record = records.first else {
                throw fail(SoupError(.unknownEntry, "soup '\(soup)' has no record '\(id)'"))
            }
            print(record.serializedString)
        }
    }

    struct Dirty: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the records with local changes.")

        @Argument(help: "The soup.") var soup: String
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let store = try openStore(global)
            printRecords(try reportingFailures { try store.soups.dirtyRecords(soup) }, json: global.json)
        }
    }
}
