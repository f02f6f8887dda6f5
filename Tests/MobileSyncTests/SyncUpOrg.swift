import Determinism
import Foundation
import Logging
import LosslessJSON
import MobileSync
import SalesforceAPI
import SalesforceSimulator

/// A simulator on 127.0.0.1 (a free port), a client for it, and the three built-in sync-up
/// targets made from one descriptor.
struct SyncUpOrg {
    static let logger = Logger.discarding

    let simulator: SalesforceSimulator
    let client: SalesforceClient

    /// Runs `body` against an org holding `accounts` (name → fields) and always stops the server.
    static func with<T>(
        accounts: [[String: JSONValue]] = [], _ body: (SyncUpOrg) async throws -> T
    ) async throws -> T {
        let data = SimulatorData(records: accounts.map { (type: "Account", fields: $0) })
        let simulator = try SalesforceSimulator(
            configuration: SalesforceSimulator.Configuration(data: data, seed: 42), sleepClock: ImmediateClock(),
            logger: logger)
        let server = try await SimulatorServer.start(simulator, logger: logger)
        let client = SalesforceClient(
            credentials: SalesforceCredentials(
                instanceURL: server.url, accessToken: simulator.accessToken, refreshToken: "simulator-refresh-token",
                clientID: "test-client"),
            clock: ImmediateClock(), randomSeed: 7, logger: logger)
        do {
            let result = try await body(SyncUpOrg(simulator: simulator, client: client))
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// The built-in target of `kind` for `descriptor`'s field names and lists.
    func target(_ kind: SyncUpTargetDescriptor.Kind, _ descriptor: SyncUpTargetDescriptor) -> any SyncUpTarget {
        switch kind {
        case .batch: CompositeSyncUpTarget(descriptor, client: client)
        case .singleRecord: RESTSyncUpTarget(descriptor, client: client)
        default: CollectionSyncUpTarget(descriptor, client: client)
        }
    }

    /// The server's Account with `id`, or `nil` when it does not exist or is deleted.
    func account(_ id: String) async throws -> JSONValue? {
        let result = try await client.query("SELECT Id, Name, Industry FROM Account WHERE Id = '\(id)'")
        return result.records.first
    }

    /// The id of the server's Account with `name`.
    func accountId(named name: String) async throws -> String? {
        let result = try await client.query("SELECT Id FROM Account WHERE Name = '\(name)'")
        return result.records.first?["Id"]?.string
    }

    /// The methods and paths of the Salesforce requests received so far.
    func requests() -> [String] {
        simulator.requestLog().map { "\($0["method"]?.string ?? "") \($0["path"]?.string ?? "")" }
    }
}

/// A soup record as sync up reads it: fields plus the local flags of `action`.
func dirtyAccount(_ fields: [String: JSONValue], _ action: SyncUpAction, alsoCreated: Bool = false) -> JSONValue {
    var record = fields
    record["attributes"] = ["type": "Account"]
    record["__local__"] = true
    record["__locally_created__"] = .bool(action == .create || alsoCreated)
    record["__locally_updated__"] = .bool(action == .update)
    record["__locally_deleted__"] = .bool(action == .delete)
    return .object(record)
}
