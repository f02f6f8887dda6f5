import Determinism
import LosslessJSON
import MobileSync
import SalesforceSimulator
import Soups
import Testing

/// A seeded campaign of MERGE_FIELDS sessions against the simulator: random local edits, other
/// users' edits, reSyncs, sync ups and resolutions, with two invariants checked after every
/// step: no local field edit disappears unless the app resolved it away, and every conflict lists
/// values both sides really had.
@Suite struct MergeFieldsCampaignTests {
    private static let fields = ["Name", "Phone"]
    private static let accounts = 3

    /// What the campaign knows: the local values not yet on the server, and every value each
    /// field has had on the server.
    private struct Model {
        var pending: [Int64: [String: JSONValue]] = [:]
        var serverHistory: [String: Set<JSONValue>] = [:]

        mutating func serverHad(_ id: String, _ field: String, _ value: JSONValue?) {
            serverHistory["\(id).\(field)", default: []].insert(value ?? .null)
        }
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func localEditsSurviveAndConflictsListRealValues(seed: UInt64) async throws {
        try await SyncHarness.with(accounts: Self.accounts) { harness in
            var random = SplitMix64(seed: seed)
            var model = Model()
            let query = "SELECT Id, Name, Phone, LastModifiedDate FROM Account"
            try await harness.manager.syncDown(
                target: try SyncDownTargetDescriptor(.soql(query: query)),
                options: SyncOptions(mergeMode: .mergeFields), soupName: SyncHarness.soup, name: "down")
            let ids = (0..<Self.accounts).map(SyncHarness.accountId)
            for id in ids {
                let record = try #require(try harness.recordsById()[id])
                for field in Self.fields { model.serverHad(id, field, record[field]) }
            }
            for step in 0..<40 {
                let id = ids[Int.random(in: 0..<ids.count, using: &random)]
                let entryId = try harness.entryId(of: id)
                let field = Self.fields[Int.random(in: 0..<Self.fields.count, using: &random)]
                let value = JSONValue.string("\(field) \(seed)-\(step)")
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<3:
                    try harness.store.soups.updateLocally(SyncHarness.soup, entryId: entryId, changes: [field: value])
                    model.pending[entryId, default: [:]][field] = value
                case 3..<6:
                    harness.simulator.advanceClock(seconds: 2)
                    try harness.simulator.write(type: "Account", id: id, fields: [field: value])
                    model.serverHad(id, field, value)
                case 6..<8:
                    #expect(try await harness.manager.reSync(name: "down").status == .done)
                case 8:
                    try await syncUp(harness, &model)
                default:
                    try resolveOne(harness, &model, &random)
                }
                try check(harness, model, step: step)
            }
        }
    }

    /// Sync up; a record that came out clean had its pending values accepted by the server.
    private func syncUp(_ harness: SyncHarness, _ model: inout Model) async throws {
        let up = try await harness.manager.syncUp(
            options: SyncOptions(mergeMode: .mergeFields, fieldlist: Self.fields), soupName: SyncHarness.soup)
        #expect(up.status == .done, "\(up.error)")
        let dirty = Set(
            try harness.store.soups.dirtyRecords(SyncHarness.soup).compactMap { $0["_soupEntryId"]?.number?.int64Value }
        )
        for (entryId, values) in model.pending where !dirty.contains(entryId) {
            let record = try #require(try harness.store.soups.retrieve(SyncHarness.soup, ids: [entryId]).first)
            let id = try #require(record["Id"]?.string)
            let server = try #require(
                try await harness.client.query("SELECT Name, Phone FROM Account WHERE Id = '\(id)'").records.first)
            for (field, value) in values {
                #expect(server[field] == value, "the server lost the local \(field) of \(id)")
                model.serverHad(id, field, value)
            }
            model.pending[entryId] = nil
        }
    }

    /// Resolves the first open conflict by taking a side; the server's side ends the pending
    /// local values of its fields.
    private func resolveOne(_ harness: SyncHarness, _ model: inout Model, _ random: inout SplitMix64) throws {
        guard let conflict = try harness.store.conflicts(soup: SyncHarness.soup).first else { return }
        let side: ConflictResolution.Side = Bool.random(using: &random) ? .local : .server
        try harness.store.resolveConflict(soup: SyncHarness.soup, entryId: conflict.entryId, .take(side))
        guard side == .server else { return }
        for field in conflict.fields { model.pending[conflict.entryId]?[field.path] = nil }
    }

    private func check(_ harness: SyncHarness, _ model: Model, step: Int) throws {
        let conflicts = try harness.store.conflicts(soup: SyncHarness.soup)
        for (entryId, values) in model.pending {
            let record = try #require(try harness.store.soups.retrieve(SyncHarness.soup, ids: [entryId]).first)
            for (field, value) in values {
                #expect(record[field] == value, "step \(step): the local \(field) of \(entryId) disappeared")
            }
        }
        for conflict in conflicts {
            let record = try #require(try harness.store.soups.retrieve(SyncHarness.soup, ids: [conflict.entryId]).first)
            let id = try #require(conflict.id)
            for field in conflict.fields {
                #expect(field.local == record[field.path], "step \(step): a conflict's local value is not the record's")
                #expect(
                    model.serverHistory["\(id).\(field.path)"]?.contains(field.server ?? .null) == true,
                    "step \(step): a conflict's server value \(String(describing: field.server)) the server never had")
            }
        }
    }
}
