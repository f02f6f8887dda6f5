import Foundation
import LosslessJSON
import MobileSync
import SalesforceSimulator
import Soups
import Testing

/// Issue 46's matrix, one test case per cell: what happens to the Name of one account, changed
/// nowhere, locally, on the server, on both sides alike or on both differently; crossed with
/// what happens to the record (updated locally, deleted locally, deleted on the server); after
/// a MERGE_FIELDS sync down, and after a MERGE_FIELDS sync up; on a plaintext store and an
/// encrypted one. An update also changes the BillingCity locally, so the record is dirty in
/// every cell.
@Suite struct MergeFieldsMatrixTests {
    enum NameChange: String, CaseIterable, Sendable {
        case nowhere, locally, onTheServer, bothAlike, bothDifferently

        var local: JSONValue? {
            switch self {
            case .nowhere, .onTheServer: nil
            case .locally, .bothDifferently: "Mine"
            case .bothAlike: "Same"
            }
        }

        var server: JSONValue? {
            switch self {
            case .nowhere, .locally: nil
            case .onTheServer, .bothDifferently: "Theirs"
            case .bothAlike: "Same"
            }
        }
    }

    enum RecordChange: String, CaseIterable, Sendable {
        case updated, deletedLocally, deletedOnTheServer
    }

    enum Direction: String, CaseIterable, Sendable {
        case down, up
    }

    struct Cell: CustomTestStringConvertible, Sendable {
        var name: NameChange
        var record: RecordChange
        var direction: Direction
        var encrypted: Bool

        var testDescription: String {
            "Name \(name), record \(record), sync \(direction), \(encrypted ? "encrypted" : "plaintext")"
        }
    }

    static let cells: [Cell] = NameChange.allCases.flatMap { name in
        RecordChange.allCases.flatMap { record in
            Direction.allCases.flatMap { direction in
                [false, true].map { Cell(name: name, record: record, direction: direction, encrypted: $0) }
            }
        }
    }

    private static let base: JSONValue = "Account 000"
    private static let query = "SELECT Id, Name, BillingCity, LastModifiedDate FROM Account"
    private static let options = SyncOptions(mergeMode: .mergeFields, fieldlist: ["Name", "BillingCity"])
    private static let key = try? StoreKey(bytes: [UInt8](repeating: 0x5A, count: StoreKey.byteCount))

    @Test(arguments: cells) func aCellEndsAsTheMatrixSays(_ cell: Cell) async throws {
        try await SyncHarness.with(accounts: 1, encryption: cell.encrypted ? Self.key : nil) { harness in
            let soup = SyncHarness.soup
            let id = SyncHarness.accountId(0)
            try await harness.manager.syncDown(
                target: try SyncDownTargetDescriptor(.soql(query: Self.query)), options: Self.options, soupName: soup,
                name: "down")
            let entryId = try harness.entryId(of: id)

            var changes: [String: JSONValue] = ["BillingCity": "Here"]
            changes["Name"] = cell.name.local
            try harness.store.soups.updateLocally(soup, entryId: entryId, changes: changes)
            if cell.record == .deletedLocally { try harness.store.soups.deleteLocally(soup, entryId: entryId) }
            harness.simulator.advanceClock(seconds: 5)
            if let name = cell.name.server {
                try harness.simulator.write(type: "Account", id: id, fields: ["Name": name])
            }
            if cell.record == .deletedOnTheServer { try harness.simulator.delete(type: "Account", id: id) }

            let status: SyncStatus
            switch cell.direction {
            case .down: status = try await harness.manager.reSync(name: "down").status
            case .up: status = try await harness.manager.syncUp(options: Self.options, soupName: soup).status
            }
            #expect(status == .done)

            let record = try harness.store.soups.retrieve(soup, ids: [entryId]).first
            let conflict = try harness.store.conflicts(soup: soup).first
            let server = harness.simulator.liveRecords(type: "Account").first
            let expected = Self.expected(cell)
            #expect(conflict?.kind == expected.conflict, "conflict: \(String(describing: conflict))")
            #expect((conflict?.fields.map(\.path) ?? []) == expected.conflictFields)
            #expect(record?["Name"] == expected.localName, "local: \(record?.serializedString ?? "gone")")
            #expect(record.map(LocalFlags.isDirty) == expected.localDirty)
            #expect(server?["Name"] == expected.serverName, "server: \(String(describing: server))")
            if let fieldConflict = conflict, fieldConflict.kind == .fields {
                #expect(
                    fieldConflict.fields == [
                        RecordConflict.Field(
                            path: "Name", base: Self.base, local: cell.name.local, server: cell.name.server)
                    ])
            }
        }
    }

    /// What a cell ends with.
    struct Expected {
        var conflict: RecordConflict.Kind?
        var conflictFields: [String] = []
        /// The record's Name, `nil` when the record is gone from the soup.
        var localName: JSONValue?
        /// Whether the record is dirty, `nil` when it is gone.
        var localDirty: Bool?
        /// The server's Name, `nil` when the server has no record.
        var serverName: JSONValue?
    }

    /// The matrix of docs/conflicts.md, written out.
    static func expected(_ cell: Cell) -> Expected {
        let local = cell.name.local ?? base
        let server = cell.name.server ?? base
        let serverChanged = cell.name.server != nil
        switch (cell.record, cell.direction) {
        case (.updated, .down):
            // Changed only on the server: taken; on both differently: the local value stays, in conflict.
            let conflict: RecordConflict.Kind? = cell.name == .bothDifferently ? .fields : nil
            return Expected(
                conflict: conflict, conflictFields: conflict == nil ? [] : ["Name"],
                localName: cell.name.local ?? server, localDirty: true, serverName: server)
        case (.updated, .up):
            // A server copy newer than the base holds the record for the next sync down;
            // otherwise only the changed fields are sent and the record is clean.
            return Expected(localName: local, localDirty: serverChanged, serverName: serverChanged ? server : local)
        case (.deletedLocally, .down):
            // A delete of a record the server changed is a record-level conflict; otherwise it waits for the sync up.
            return Expected(
                conflict: serverChanged ? .deletedLocally : nil, conflictFields: serverChanged ? ["Name"] : [],
                localName: local, localDirty: true, serverName: server)
        case (.deletedLocally, .up):
            // Sent only when the server did not change the record since; else held like an update.
            return serverChanged
                ? Expected(localName: local, localDirty: true, serverName: server)
                : Expected(localName: nil, localDirty: nil, serverName: nil)
        case (.deletedOnTheServer, .down):
            // A sync down never sees a deleted record: the local change waits for the sync up.
            return Expected(localName: local, localDirty: true, serverName: nil)
        case (.deletedOnTheServer, .up):
            // The update is answered "not found": a record-level conflict listing the local changes.
            let fields = cell.name.local == nil ? ["BillingCity"] : ["BillingCity", "Name"]
            return Expected(
                conflict: .deletedOnServer, conflictFields: fields, localName: local, localDirty: true, serverName: nil)
        }
    }
}
