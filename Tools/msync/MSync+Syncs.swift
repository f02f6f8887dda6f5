import ArgumentParser
import Determinism
import Foundation
import Logging
import LosslessJSON
import MobileSync
import SalesforceAPI
import Soups
import ToolSupport

/// Opens the store and its sync manager, with a connection when the command needs one.
func openManager(_ global: GlobalOptions, connectedFor command: String?) throws -> SyncManager {
    let store = try openStore(global)
    let client = try command.map { try makeClient(global, for: $0) }
    return try reportingFailures {
        try SyncManager(store: store, client: client, clock: SystemWallClock(), logger: Logger(label: "msync"))
    }
}

/// Runs an async body, turning any error into one line and msync's exit status.
func reportingFailures<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        throw fail(error)
    }
}

/// A sync's id or name as typed: digits are an id.
func findSync(_ store: SyncStore, _ idOrName: String) throws -> SyncState {
    let found = try reportingFailures {
        if let id = Int64(idOrName) { try store.syncState(id: id) } else { try store.syncState(named: idOrName) }
    }
    guard let found else { throw fail(SyncError.syncNotFound(idOrName)) }
    return found
}

/// Shows a running sync's progress on standard error and, at the end, prints its final state
/// (Mobile SDK's keys) and turns its status into the exit status.
final class SyncProgressPrinter: Sendable {
    private let reporter: ProgressReporterBox

    init(_ label: String) {
        reporter = ProgressReporterBox(ProgressReporter(label))
    }

    var onUpdate: SyncManager.UpdateHandler {
        { [reporter] state in
            guard state.status == .running else { return }
            reporter.update(Int64(state.progress), of: 100)
        }
    }

    /// Prints `state` and throws the exit status for a sync that did not end DONE.
    func finish(_ state: SyncState) throws {
        reporter.finish()
        print(state.json.serializedString)
        guard state.status != .done else { return }
        FileHandle.standardError.write(
            Data("msync: sync \(state.id) ended \(state.status.rawValue)\(describe(state.error))\n".utf8))
        throw Self.couldNotReachServer(state) ? MSyncExit.serverUnreachable : MSyncExit.syncFailed
    }

    /// Whether a FAILED sync failed because the server could not be reached or would not let
    /// us in. The state keeps the error as text (Mobile SDK's `error` key), so this reads the
    /// codes `SalesforceError` writes there.
    static func couldNotReachServer(_ state: SyncState) -> Bool {
        guard state.status == .failed else { return false }
        let codes = ["network", "timeout", "sessionRevoked", "authenticationFailed"]
        return codes.contains { state.error.contains("SalesforceError(\($0)") }
    }

    private func describe(_ error: String) -> String {
        error.isEmpty ? "" : ": " + (error.split(separator: "\n").first.map(String.init) ?? error)
    }
}

/// Lets the non-Sendable reporter be driven from the manager's callbacks, one at a time.
final class ProgressReporterBox: @unchecked Sendable {
    // Callbacks of one sync arrive one after another (the manager runs one sync at a time);
    // the lock makes that explicit.
    private let lock = NSLock()
    private let reporter: ProgressReporter

    init(_ reporter: ProgressReporter) {
        self.reporter = reporter
    }

    func update(_ done: Int64, of total: Int64) {
        lock.withLock { reporter.update(done, of: total) }
    }

    func finish() {
        lock.withLock { reporter.finish() }
    }
}

/// A sync's merge mode as typed.
struct MergeModeArgument: ExpressibleByArgument {
    static let overwrite = MergeModeArgument(mode: .overwrite)

    let mode: MergeMode

    init(mode: MergeMode) {
        self.mode = mode
    }

    init?(argument: String) {
        guard let mode = MergeMode(rawValue: argument.uppercased()) else { return nil }
        self.mode = mode
    }

    static var allValueStrings: [String] { MergeMode.allCases.map(\.rawValue) }
}

extension MSync {
    struct Setup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register the soups of a userstore.json and create the syncs of a usersyncs.json.")

        @Option(help: "A userstore.json / globalstore.json file.") var storeConfig: String?
        @Option(help: "A usersyncs.json / globalsyncs.json file.") var syncsConfig: String?
        @OptionGroup var global: GlobalOptions

        func validate() throws {
            guard storeConfig != nil || syncsConfig != nil else {
                throw ValidationError("give --store-config, --syncs-config or both")
            }
        }

        func run() async throws {
            let manager = try openManager(global, connectedFor: nil)
            let soups = try reportingFailures { () throws -> [String] in
                guard let storeConfig else { return [] }
                let config = try StoreConfig(parsing: try readFile(storeConfig))
                return try manager.store.soups.register(config)
            }
            let syncs = try await reportingFailures { () async throws -> [SyncState] in
                guard let syncsConfig else { return [] }
                return try await manager.setupSyncs(from: try SyncsConfig(bytes: try readFile(syncsConfig)))
            }
            if global.json {
                let document: JSONValue = [
                    "soups": .array(soups.map(JSONValue.string)), "syncs": .array(syncs.map(\.json)),
                ]
                print(document.serializedString)
            } else {
                print("registered \(soups.count) soups: \(soups.joined(separator: ", "))")
                print("created \(syncs.count) syncs: \(syncs.map { $0.name ?? String($0.id) }.joined(separator: ", "))")
            }
        }
    }

    struct SyncDown: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync-down", abstract: "Create a sync down, run it, and print its final state.")

        @Option(help: "The soup records go to.") var soup: String
        @Option(help: #"The target JSON, e.g. {"type":"soql","query":"SELECT Name FROM Account"}."#)
        var target: String
        @Option(help: "OVERWRITE or LEAVE_IF_CHANGED.") var mergeMode = MergeModeArgument.overwrite
        @Option(help: "A unique name, so the sync can be re-run by name.") var name: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let descriptor = try reportingFailures {
                try SyncDownTargetDescriptor(json: .object(try parseObject(target, what: "target")))
            }
            let manager = try openManager(global, connectedFor: "sync-down")
            let printer = SyncProgressPrinter("sync-down \(name ?? soup)")
            let final = try await reportingFailures {
                try await manager.syncDown(
                    target: descriptor, options: SyncOptions(mergeMode: mergeMode.mode), soupName: soup, name: name,
                    onUpdate: printer.onUpdate)
            }
            try printer.finish(final)
        }
    }

    struct SyncUp: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync-up", abstract: "Create a sync up, run it, and print its final state.")

        @Option(help: "The soup whose local changes are sent.") var soup: String
        @Option(help: "The target JSON; the sObject Collections target when omitted.") var target: String?
        @Option(help: "The fields to send, comma-separated.") var fieldlist: String?
        @Option(help: "OVERWRITE or LEAVE_IF_CHANGED.") var mergeMode = MergeModeArgument.overwrite
        @Option(help: "A unique name, so the sync can be re-run by name.") var name: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let descriptor = try reportingFailures {
                guard let target else { return SyncUpTargetDescriptor() }
                return try SyncUpTargetDescriptor(json: .object(try parseObject(target, what: "target")))
            }
            let fields = fieldlist.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            let manager = try openManager(global, connectedFor: "sync-up")
            let printer = SyncProgressPrinter("sync-up \(name ?? soup)")
            let final = try await reportingFailures {
                try await manager.syncUp(
                    target: descriptor, options: SyncOptions(mergeMode: mergeMode.mode, fieldlist: fields),
                    soupName: soup, name: name, onUpdate: printer.onUpdate)
            }
            try printer.finish(final)
        }
    }

    struct Resync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a sync again (a sync down fetches what changed since its watermark).")

        @Argument(help: "The sync's name or id.") var sync: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let manager = try openManager(global, connectedFor: "resync")
            let state = try findSync(manager.store, sync)
            let printer = SyncProgressPrinter("resync \(state.name ?? String(state.id))")
            let final = try await reportingFailures {
                try await manager.reSync(id: state.id, onUpdate: printer.onUpdate)
            }
            try printer.finish(final)
        }
    }

    struct CleanGhosts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clean-ghosts",
            abstract:
                "Delete this sync's clean records the server no longer has, and the soup's clean records no sync owns "
                + "that the server no longer has.")

        @Argument(help: "The sync down's name or id.") var sync: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let manager = try openManager(global, connectedFor: "clean-ghosts")
            let state = try findSync(manager.store, sync)
            let count = try await reportingFailures { try await manager.cleanResyncGhosts(id: state.id) }
            if global.json {
                print(
                    JSONValue.object([
                        "syncId": .number(JSONNumber(state.id)), "deleted": .number(JSONNumber(Int64(count))),
                    ]).serializedString)
            } else {
                print("deleted \(count) ghost records of sync \(state.name ?? String(state.id))")
            }
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print one sync's state, or every sync's; reads only.",
            discussion: """
                A sync another process is running shows RUNNING. A sync left RUNNING by a process \
                that ended mid-run shows STOPPED, which the next command that runs syncs records.
                """)

        @Argument(help: "The sync's name or id; every sync when omitted.") var sync: String?
        @OptionGroup var global: GlobalOptions

        func run() throws {
            // Only the store: a sync manager would journal interrupted syncs STOPPED on open.
            let store = try openStore(global)
            if let sync {
                let state = try findSync(store, sync)
                print(try reportingFailures { try store.currentState(of: state) }.json.serializedString)
                return
            }
            let states = try reportingFailures { try store.syncStates().map(store.currentState(of:)) }
            if global.json {
                print(JSONValue.array(states.map(\.json)).serializedString)
            } else {
                for state in states {
                    let name = state.name.map { " \($0)" } ?? ""
                    // A sync down's last run: what it fetched, and what of it really changed.
                    let counts =
                        state.type == .syncDown
                        ? " totalSize=\(state.totalSize) fetched=\(state.fetchedCount) changed=\(state.changedCount)"
                        : ""
                    print(
                        "\(state.id)\(name) \(state.type.rawValue) \(state.soupName) \(state.status.rawValue) "
                            + "\(state.progress)% maxTimeStamp=\(state.maxTimeStamp)\(counts)")
                }
            }
        }
    }

    struct DeleteSync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete-sync", abstract: "Delete a sync; its records stay in the soup.")

        @Argument(help: "The sync's name or id.") var sync: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let manager = try openManager(global, connectedFor: nil)
            let state = try findSync(manager.store, sync)
            try await reportingFailures { try await manager.deleteSync(id: state.id) }
            print(global.json ? #"{"deleted":\#(state.id)}"# : "deleted sync \(state.name ?? String(state.id))")
        }
    }
}

/// The bytes of a file named on the command line; a missing file is bad input.
func readFile(_ path: String) throws -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw UsageFailure("cannot read \(path)")
    }
    return Array(data)
}
