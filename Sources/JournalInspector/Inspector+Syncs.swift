import EventJournal
import LosslessJSON
import MobileSync
import Soups
import ToolSupport

extension Inspector {
    /// The syncs as of `asOf`: each sync's state (what `state` prints for it), its runs from
    /// the journal with their windows, watermarks, totals and failures, its pending uploads,
    /// and the records of its soup that carry a `__last_error__`.
    ///
    /// A refused record stays dirty with its `__last_error__`, so only the soup's dirty records
    /// are read, and at most ``failingRecordsShownMax`` of them listed (`failingRecordCount`
    /// counts them all): the page never reads a whole soup.
    func syncs(_ request: InspectorRequest) throws -> JSONValue {
        let asOf = try asOf(request)
        let last = try store.journal.lastSequence()
        let syncProjection = store.journal.projections.first { $0.name == Self.syncsProjectionName }
        typealias Failing = (records: [JSONValue], count: Int)
        let (syncStates, failingBySoup, sequence) = try store.journal.withState(asOf: asOf ?? UInt64.max) {
            context, sequence in
            let described = try syncProjection?.describeState(in: context, filter: [:])
            let syncStates = described?["syncs"]?.object ?? [:]
            var failingBySoup: [String: Failing] = [:]
            for soup in Set(syncStates.values.compactMap { $0["soupName"]?.string }) {
                var failing: Failing = ([], 0)
                do {
                    try SoupProjection.forEachDirtyRecord(in: context, soup: soup) { _, record in
                        guard let error = record["__last_error__"], error != .null, error != .string("") else {
                            return true
                        }
                        failing.count += 1
                        if failing.records.count < Self.failingRecordsShownMax { failing.records.append(record) }
                        return true
                    }
                } catch let error as SoupError where error.code == .unknownSoup {
                    // A sync may name a soup not registered (yet) at this entry.
                }
                failingBySoup[soup] = failing
            }
            return (syncStates, failingBySoup, sequence)
        }
        let entries = try entries(through: asOf ?? last)
        let groups = try TimelineGroup.group(entries)
        var syncs: [JSONValue] = []
        for (id, syncState) in syncStates.sorted(by: { (Int64($0.key) ?? 0) < (Int64($1.key) ?? 0) }) {
            if let name = request["sync"], name != id, syncState["name"]?.string != name { continue }
            let runs = groups.filter { $0.kind == .syncRun && $0.syncId == id }.map { $0.json(showing: nil) }
            let failing = failingBySoup[syncState["soupName"]?.string ?? ""] ?? ([], 0)
            var sync: [String: JSONValue] = ["id": .string(id), "state": syncState, "runs": .array(runs)]
            sync["pendingUploads"] = Self.pendingUploads(of: id, in: entries)
            sync["recordsWithLastError"] = .array(failing.records)
            sync["failingRecordCount"] = .number(JSONNumber(Int64(failing.count)))
            syncs.append(.object(sync))
        }
        return ["asOf": number(sequence), "lastSequence": number(last), "syncs": .array(syncs)]
    }

    /// The name of MobileSync's sync-state projection, whose description lists the syncs.
    static let syncsProjectionName = "syncs"
    /// The most records with a `__last_error__` the syncs page lists per sync.
    static let failingRecordsShownMax = 50

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
