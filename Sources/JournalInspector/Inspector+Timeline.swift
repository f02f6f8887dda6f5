import EventJournal
import LosslessJSON
import MobileSync
import ToolSupport

extension Inspector {
    /// The timeline: every entry from the horizon to `asOf`, grouped into sync runs, local
    /// edits and single entries; filtered by `kind`, `soup`, `sync` (as `log` filters) and
    /// `record` (the entries `blame` lists for that record of `soup`). Entries that found open
    /// conflicts, and conflict resolutions, are marked (`TimelineGroup.entryJSON`).
    /// A page lists the newest
    /// `limit` matching entries (``timelineEntriesDefault``, at most ``timelineEntriesMax``);
    /// `to=` pages back.
    func timeline(_ request: InspectorRequest) throws -> JSONValue {
        let limit = try Self.bounded(
            request["limit"], name: "limit", default: Self.timelineEntriesDefault, in: 1...Self.timelineEntriesMax)
        let asOf = try asOf(request)
        let last = try store.journal.lastSequence()
        let horizon = try store.journal.horizon()
        var log = try logQuery(request)
        log.to = min(log.to ?? UInt64.max, asOf ?? UInt64.max)
        var shown: Set<UInt64> = []
        try log.forEachEntry(in: store.journal) { shown.insert($0.sequence) }
        if let record = request["record"] {
            guard let soup = request["soup"] else {
                throw InspectorError(.badRequest, "a record filter needs its soup: give soup= too")
            }
            let history = try RecordHistory(journal: store.journal, soup: soup, id: record)
            shown.formIntersection(history.events.map(\.sequence))
        }
        let matching = shown.count
        // A page of a long journal lists its newest entries; `to=` pages back.
        if shown.count > limit {
            shown = Set(shown.sorted().suffix(limit))
        }
        let firstShown = shown.min() ?? (asOf ?? last)
        // Grouping reads the entries from the first one listed (every entry up to asOf when the
        // page is not cut), so a filtered page still shows whole runs' bounds and outcomes.
        let groups = try TimelineGroup.group(
            try entries(from: matching > shown.count ? firstShown : nil, through: asOf ?? last))
        let visible = groups.filter { group in group.entries.contains { shown.contains($0.sequence) } }
        let found = try conflictsFound()
        return [
            "lastSequence": number(last), "asOf": number(asOf ?? last),
            "horizon": number(horizon.firstSequence), "compacted": .bool(horizon.isCompacted),
            "shownEntries": number(UInt64(shown.count)), "matchingEntries": number(UInt64(matching)),
            "firstShown": number(firstShown),
            "groups": .array(visible.map { $0.json(showing: shown, conflictsFound: found) }),
            "kinds": .array(try store.journal.read { try $0.kindCounts() }.keys.sorted().map { .string($0.rawValue) }),
        ]
    }

    /// The entries one timeline page lists unless asked for more: a first screen whose answer
    /// stays far below 200 KB (each entry links at most ``TimelineGroup/linkedRecordsMax`` records).
    static let timelineEntriesDefault = 200
    /// The most entries one timeline page lists: a browser draws them in well under a second.
    static let timelineEntriesMax = 1_000

    /// Every kept entry from `first` (the horizon when `nil`) through `sequence`.
    func entries(from first: UInt64? = nil, through sequence: UInt64) throws -> [JournalEntry] {
        var entries: [JournalEntry] = []
        try JournalLog(from: first, to: sequence).forEachEntry(in: store.journal) { entries.append($0) }
        return entries
    }

    func number(_ value: UInt64) -> JSONValue { .number(JSONNumber(Int64(value))) }
}
