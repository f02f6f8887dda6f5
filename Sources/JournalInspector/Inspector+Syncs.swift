import EventJournal
import LosslessJSON
import MobileSync
import Soups
import ToolSupport

extension Inspector {
    /// The syncs as of `asOf`: each sync's state (what `state` prints for it), its runs from
    /// the journal with their windows, watermarks, totals and failures, its pending uploads,
    /// and the records of its soup that carry a `__last_error__`.
    func syncs(_ request: InspectorRequest) throws -> JSONValue {
        let asOf = try asOf(request)
        let last = try store.journal.lastSequence()
        let state = try StateDescription.json(of: store.journal, asOf: asOf, soup: nil)
        let projections = state["projections"]
        let syncStates = projections?["syncs"]?["syncs"]?.object ?? [:]
        let soups = projections?["soups"]?.object ?? [:]
        let entries = try entries(through: asOf ?? last)
        let groups = try TimelineGroup.group(entries)
        var syncs: [JSONValue] = []
        for (id, syncState) in syncStates.sorted(by: { (Int64($0.key) ?? 0) < (Int64($1.key) ?? 0) }) {
            if let name = request["sync"], name != id, syncState["name"]?.string != name { continue }
            let runs = groups.filter { $0.kind == .syncRun && $0.syncId == id }.map { $0.json(showing: nil) }
            let soup = syncState["soupName"]?.string ?? ""
            let failing = (soups[soup]?["records"]?.array ?? []).filter { record in
                guard let error = record["__last_error__"] else { return false }
                return error != .null && error != .string("")
            }
            syncs.append(
                [
                    "id": .string(id), "state": syncState, "runs": .array(runs),
                    "pendingUploads": Self.pendingUploads(of: id, in: entries),
                    "recordsWithLastError": .array(failing),
                ])
        }
        return ["asOf": state["asOf"] ?? .null, "lastSequence": number(last), "syncs": .array(syncs)]
    }

    /// The uploads of sync `syncId` journaled as intended and not yet answered by `entries`'
    /// end: what the uploads projection holds at that point (an intent puts, an outcome
    /// removes), read from the entries so it answers as of any entry.
    static func pendingUploads(of syncId: String, in entries: [JournalEntry]) -> JSONValue {
        var pending: [String: JournalEntry] = [:]
        for entry in entries where entry.header["syncId"]?.description == syncId {
            guard let requestId = entry.header["requestId"]?.string else { continue }
            if entry.kind == .syncUpIntent { pending[requestId] = entry }
            if entry.kind == .syncUpOutcome { pending[requestId] = nil }
        }
        return .array(
            pending.values.sorted { $0.sequence < $1.sequence }.map { entry in
                [
                    "requestId": .string(entry.header["requestId"]?.string ?? ""),
                    "intentSequence": .number(JSONNumber(Int64(entry.sequence))),
                    "intent": (try? entry.jsonPayload()) ?? .null,
                ]
            })
    }
}
