import ArgumentParser
import LosslessJSON
import MobileSync

extension MSync {
    struct Conflicts: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the conflicts MERGE_FIELDS syncs found (base, local and server values).")

        @Argument(help: "The soup; every soup when omitted.") var soup: String?
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let store = try openStore(global)
            let conflicts = try reportingFailures {
                try soup.map { try store.conflicts(soup: $0) } ?? store.conflicts()
            }
            if global.json {
                print(JSONValue.array(conflicts.map(\.json)).serializedString)
                return
            }
            if conflicts.isEmpty { print("no conflicts") }
            for conflict in conflicts {
                print(
                    "\(conflict.soup) \(conflict.id ?? "-") (_soupEntryId \(conflict.entryId)): \(conflict.kind.rawValue)"
                )
                for field in conflict.fields {
                    print(
                        "  \(field.path): base \(Self.text(field.base)), local \(Self.text(field.local)), server \(Self.text(field.server))"
                    )
                }
            }
        }

        private static func text(_ value: JSONValue?) -> String {
            value?.serializedString ?? "(absent)"
        }
    }

    struct Resolve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Resolve a conflict: take one side, or give fields their values (a local edit to sync up).")

        @Argument(help: "The soup.") var soup: String
        @Argument(help: "The record's Id or _soupEntryId.") var id: String
        @Option(help: "Take every field from one side: local or server.") var take: ConflictSideArgument?
        @Option(
            name: .customLong("field"),
            help: "PATH=local, PATH=server or PATH=JSON: one field's choice (repeatable); unnamed fields stay.")
        var fields: [String] = []
        @OptionGroup var global: GlobalOptions

        func validate() throws {
            guard (take == nil) != fields.isEmpty else {
                throw ValidationError("Give either --take local|server or one or more --field PATH=VALUE.")
            }
        }

        func run() throws {
            let store = try openStore(global)
            let resolution: ConflictResolution = try take.map { .take($0.side) } ?? .fields(Self.choices(fields))
            let entryId = try resolveEntryId(store, soup: soup, id: id)
            let remaining = try reportingFailures {
                try store.resolveConflict(soup: soup, entryId: entryId, resolution)
            }
            if global.json {
                print((remaining?.json ?? .null).serializedString)
            } else if let remaining {
                print("still in conflict: \(remaining.fields.map(\.path).joined(separator: ", "))")
            } else {
                print("resolved")
            }
        }

        /// `PATH=local`, `PATH=server` or `PATH=JSON` per field.
        static func choices(_ arguments: [String]) throws -> [String: ConflictResolution.FieldChoice] {
            var choices: [String: ConflictResolution.FieldChoice] = [:]
            for argument in arguments {
                guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
                    throw ValidationError("--field takes PATH=local, PATH=server or PATH=JSON; got '\(argument)'.")
                }
                let path = String(argument[..<equals])
                let text = String(argument[argument.index(after: equals)...])
                switch text {
                case "local": choices[path] = .local
                case "server": choices[path] = .server
                default:
                    guard let value = try? JSONValue(parsing: Array(text.utf8)) else {
                        throw ValidationError("--field \(path): '\(text)' is not local, server or a JSON value.")
                    }
                    choices[path] = .value(value)
                }
            }
            return choices
        }
    }
}

/// A side of a conflict as typed: `local` or `server`.
struct ConflictSideArgument: ExpressibleByArgument {
    let side: ConflictResolution.Side

    init?(argument: String) {
        guard let side = ConflictResolution.Side(rawValue: argument.lowercased()) else { return nil }
        self.side = side
    }

    static var allValueStrings: [String] { ConflictResolution.Side.allCases.map(\.rawValue) }
}
