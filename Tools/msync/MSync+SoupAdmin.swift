import ArgumentParser
import Foundation
import LosslessJSON
import MobileSync
import Soups

/// The `--index PATH:TYPE` options of the commands that set a soup's indexes.
struct IndexOptions: ParsableArguments {
    @Option(
        name: .customLong("index"),
        help: "An index spec PATH:TYPE, TYPE one of string, integer, floating, json1, full_text.")
    var indexes: [String] = []

    func validate() throws {
        guard !indexes.isEmpty else { throw ValidationError("a soup needs at least one --index PATH:TYPE") }
        for index in indexes where Self.spec(index) == nil {
            throw ValidationError(
                "bad index spec '\(index)': expected PATH:TYPE with TYPE one of "
                    + IndexType.allCases.map(\.rawValue).joined(separator: ", "))
        }
    }

    /// The specs, in the order given.
    var specs: [IndexSpec] {
        indexes.compactMap(Self.spec)
    }

    static func spec(_ text: String) -> IndexSpec? {
        guard let colon = text.lastIndex(of: ":"), colon != text.startIndex,
            let type = IndexType(rawValue: String(text[text.index(after: colon)...]))
        else { return nil }
        return IndexSpec(path: String(text[..<colon]), type: type)
    }
}

/// Prints a soup and the index specs the store holds for it, with what the command did.
func printSoup(_ name: String, _ specs: [IndexSpec], json: Bool, changed: Bool, what: String) {
    if json {
        let document: JSONValue = [
            "soup": .string(name), "indexes": .array(specs.map { .string($0.description) }), "changed": .bool(changed),
        ]
        print(document.serializedString)
    } else {
        print("soup \(name) \(what): \(specs.map(\.description).joined(separator: ", "))")
    }
}

extension MSync {
    struct RegisterSoup: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "register-soup", abstract: "Register a soup with its index specs.",
            discussion: """
                A soup that exists is left as it is, as SmartStore does: the command prints the \\
                indexes the store holds and says nothing changed. Use alter-soup to change them.
                """)

        @Argument(help: "The soup name.") var name: String
        @OptionGroup var indexes: IndexOptions
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let store = try openStore(global)
            let asked = indexes.specs
            let (existed, held) = try reportingFailures {
                let existed = try store.soups.hasSoup(name)
                try store.soups.registerSoup(name, indexSpecs: asked)
                return (existed, try store.soups.indexSpecs(of: name))
            }
            if existed, held != asked {
                FileHandle.standardError.write(
                    Data("msync: soup '\(name)' exists with other indexes; use alter-soup to change them\n".utf8))
            }
            printSoup(
                name, held, json: global.json, changed: !existed,
                what: existed ? "exists, nothing changed" : "registered")
        }
    }

    struct AlterSoup: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "alter-soup", abstract: "Change a soup's index specs; its records stay.",
            discussion: """
                Indexes kept with the same path and type keep their entries. New ones are computed \\
                from the records with --reindex; without it every record has null in them until it \\
                is saved again, as in SmartStore.
                """)

        @Argument(help: "The soup.") var name: String
        @OptionGroup var indexes: IndexOptions
        @Flag(name: .customLong("reindex"), help: "Compute the new indexes from the records now.")
        var reIndex = false
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let store = try openStore(global)
            let held = try reportingFailures {
                try store.soups.alterSoup(name, indexSpecs: indexes.specs, reIndex: reIndex)
                return try store.soups.indexSpecs(of: name)
            }
            printSoup(
                name, held, json: global.json, changed: true, what: reIndex ? "altered and re-indexed" : "altered")
        }
    }

    struct ClearSoup: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear-soup",
            abstract: "Remove every record of a soup and keep the soup; entry ids are never reused.")

        @Argument(help: "The soup.") var name: String
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let store = try openStore(global)
            let removed = try reportingFailures {
                let count = try store.soups.count(QuerySpec.all(name))
                try store.soups.clearSoup(name)
                return count
            }
            if global.json {
                print(
                    JSONValue.object(["soup": .string(name), "removed": .number(JSONNumber(Int64(removed)))])
                        .serializedString)
            } else {
                print("soup \(name) cleared: \(removed) records removed")
            }
        }
    }

    struct DropSoup: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "drop-soup", abstract: "Remove a soup and its records; syncs that name it are kept.")

        @Argument(help: "The soup.") var name: String?
        @Flag(help: "Remove every soup, in one write (SmartStore's dropAllSoups).") var all = false
        @OptionGroup var global: GlobalOptions

        func validate() throws {
            guard (name == nil) == all else { throw ValidationError("name one soup, or pass --all") }
        }

        func run() throws {
            let store = try openStore(global)
            let dropped = try reportingFailures { () throws -> [String] in
                guard let name else { return try store.soups.dropAllSoups() }
                // SmartStore ignores an unknown soup; a command says so, so a mistyped name is seen.
                guard try store.soups.hasSoup(name) else {
                    throw SoupError(.unknownSoup, "no soup named '\(name)'")
                }
                try store.soups.dropSoup(name)
                return [name]
            }
            if global.json {
                let json: JSONValue =
                    all ? ["dropped": .array(dropped.map(JSONValue.string))] : ["dropped": .string(dropped.first ?? "")]
                print(json.serializedString)
            } else {
                for soup in dropped { print("soup \(soup) dropped") }
            }
        }
    }
}
