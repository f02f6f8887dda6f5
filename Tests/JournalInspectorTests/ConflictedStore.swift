import Determinism
import Foundation
import JournalInspector
import Logging
import LosslessJSON
import MobileSync
import Soups
import SyncTesting

/// A store with three open MERGE_FIELDS conflicts, made as a user makes them: the built `msync`
/// syncs accounts down from the built `salesforce-simulator`; the app edits one account's name
/// and deletes another while a second user changes both on the server, and a re-sync finds a
/// field conflict and a `deletedLocally` one; then the app edits a third account that the other
/// user deletes, and the sync up's outcome finds a `deletedOnServer` conflict
/// (docs/conflicts.md). Served by an in-process inspector on 127.0.0.1 port 0.
struct ConflictedStore {
    /// The token the server requires: the tests check the pages, not how it is drawn.
    static let token = InspectedSession.token
    static let soup = "accounts"

    let directory: TemporaryDirectory
    let storeURL: URL
    let store: SyncStore
    let server: InspectorServer
    /// The account whose name both sides changed.
    let editedId: String
    /// The account deleted locally and changed on the server.
    let deletedId: String
    /// The account changed locally and deleted on the server.
    let serverDeletedId: String
    /// The entries that shaped the conflicts, in journal order.
    let fetched: UInt64
    let edited: UInt64
    let deleted: UInt64
    let refetched: UInt64
    let serverDeletedEdit: UInt64
    /// The sync up's outcome that found the `deletedOnServer` conflict.
    let uploaded: UInt64

    var port: Int { server.port }

    static func start() async throws -> ConflictedStore {
        let directory = try TemporaryDirectory("inspector-conflicts")
        do {
            return try await make(in: directory)
        } catch {
            directory.remove()
            throw error
        }
    }

    private static func make(in directory: TemporaryDirectory) async throws -> ConflictedStore {
        let storeURL = directory.appending("store")
        let simulator = try SimulatorProcess(["--seed", "5"])
        defer { simulator.stop() }
        let msync = try BuiltProduct("msync")
        let run = { (arguments: [String]) async throws -> JSONValue in
            let output = try await msync.run(arguments + ["--store", storeURL.path] + simulator.connectionArguments)
            // A sync up that found a conflict says so in its summary, whatever its status.
            guard output.status == 0 || arguments.first == "sync-up" else {
                throw LoopbackHTTP.Failure(description: "msync \(arguments): \(output.standardError)")
            }
            return (try? JSONValue(parsing: Array(output.standardOutput.utf8))) ?? .null
        }
        _ = try await run(["register-soup", soup, "--index", "Id:string"])
        let target =
            #"{"type":"soql","query":"SELECT Id, Name, Phone, LastModifiedDate FROM Account WHERE ExternalId__c LIKE 'ACC-1_'"}"#
        _ = try await run([
            "sync-down", "--soup", soup, "--target", target, "--merge-mode", "MERGE_FIELDS", "--name", "down",
        ])
        let ids = try await run(["query", soup, "--json", "--page-size", "3"]).array?.compactMap { $0["Id"]?.string }
        guard let ids, ids.count == 3 else { throw LoopbackHTTP.Failure(description: "the sync fetched \(ids ?? [])") }
        _ = try await run(["update", soup, ids[0], #"{"Name":"Mine"}"#])
        _ = try await run(["delete", soup, ids[1]])
        guard let port = URLComponents(string: simulator.url)?.port else {
            throw LoopbackHTTP.Failure(description: "no port in \(simulator.url)")
        }
        try await serverEdit(port: port, ids[0], ["Name": "Theirs"])
        try await serverEdit(port: port, ids[1], ["Phone": "555-0100"])
        _ = try await run(["resync", "down"])
        _ = try await run(["update", soup, ids[2], #"{"Name":"Edited here"}"#])
        try await control(port: port, "DELETE", "/__simulator/records/Account/\(ids[2])")
        _ = try await run([
            "sync-up", "--soup", soup, "--fieldlist", "Name,Phone", "--merge-mode", "MERGE_FIELDS", "--name", "up",
        ])

        let store = try SyncStore.openExisting(directory: storeURL, clock: SystemWallClock(), logger: .discarding)
        let server: InspectorServer
        do {
            server = try await InspectorServer.start(store, storeName: "store", token: token, logger: .discarding)
        } catch {
            try? store.journal.close()
            throw error
        }
        // The entries, found by kind: the first and last fetched pages, the edit and the delete.
        var pages: [UInt64] = []
        var saves: [UInt64] = []
        var outcomes: [UInt64] = []
        for entry in try store.journal.entries(in: 1...(try store.journal.lastSequence())) {
            if entry.kind == .syncDownPageFetched { pages.append(entry.sequence) }
            if entry.kind == SoupEntryKind.saved.kind { saves.append(entry.sequence) }
            if entry.kind == .syncUpOutcome { outcomes.append(entry.sequence) }
        }
        guard saves.count == 3, let uploaded = outcomes.last else {
            throw LoopbackHTTP.Failure(description: "saves \(saves), upload outcomes \(outcomes)")
        }
        return ConflictedStore(
            directory: directory, storeURL: storeURL, store: store, server: server, editedId: ids[0],
            deletedId: ids[1], serverDeletedId: ids[2], fetched: pages.first ?? 0, edited: saves[0],
            deleted: saves[1], refetched: pages.last ?? 0, serverDeletedEdit: saves[2], uploaded: uploaded)
    }

    /// Another user changes `fields` of the account `id`, five seconds later on the server's clock.
    private static func serverEdit(port: Int, _ id: String, _ fields: JSONValue) async throws {
        try await control(port: port, "POST", "/__simulator/clock/advance?seconds=5")
        try await control(
            port: port, "POST", "/__simulator/records",
            body: ["type": "Account", "id": .string(id), "fields": fields])
    }

    /// Calls the simulator's control plane, as the other user.
    private static func control(port: Int, _ method: String, _ target: String, body: JSONValue? = nil)
        async throws
    {
        let answer = try await LoopbackHTTP.request(method, port: port, target, body: body?.serialized() ?? [])
        guard (200..<300).contains(answer.status) else {
            throw LoopbackHTTP.Failure(description: "\(method) \(target) answered \(answer.status): \(answer.text)")
        }
    }

    func stop() async {
        await server.stop()
        try? store.journal.close()
        directory.remove()
    }

    /// GETs an endpoint with the token and parses its JSON answer, whatever its status.
    func get(_ path: String, _ query: String = "") async throws -> (status: Int, json: JSONValue) {
        let answer = try await LoopbackHTTP.get(
            port: port, "\(path)?token=\(Self.token)\(query.isEmpty ? "" : "&" + query)")
        return (answer.status, try JSONValue(parsing: answer.body))
    }
}
