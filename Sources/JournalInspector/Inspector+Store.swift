import Determinism
import EventJournal
import LosslessJSON
import MobileSync
import ToolSupport

extension Inspector {
    /// The store page: `info`'s summary, and series to chart: the journal's bytes and entries
    /// as it grew (one point per entry, at most ``storeSeriesPointsMax`` points), checkpoints,
    /// horizon and entries per kind.
    func storePage(_ request: InspectorRequest) throws -> JSONValue {
        let summary = try StoreSummary.json(of: store.journal, store: storeName)
        let last = try store.journal.lastSequence()
        // One point per entry would make a long journal's page heavy; every stride-th entry
        // draws the same curve.
        let stride = max(1, Int(last) / Self.storeSeriesPointsMax)
        var points: [JSONValue] = []
        var bytes = 0
        var index = 0
        try JournalLog().forEachEntry(in: store.journal) { entry in
            bytes += Journal.exportLine(for: entry).count
            if index % stride == 0 || entry.sequence == last {
                points.append(
                    [
                        "sequence": number(entry.sequence), "timestamp": .string(entry.timestamp.salesforceFormat),
                        "journalBytes": .number(JSONNumber(Int64(bytes))),
                    ])
            }
            index += 1
        }
        return ["summary": summary, "growth": .array(points)]
    }

    /// The most points of the growth series the store page draws.
    static let storeSeriesPointsMax = 500
}
