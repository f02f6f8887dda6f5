import Determinism
import EventJournal
import LosslessJSON
import MobileSync
import Soups

/// Entries that belong together on the timeline: one sync run, a stretch of local edits, or
/// an entry of its own.
///
/// A run starts with a sync's `RUNNING` state entry and ends with its next state entry
/// (`DONE`, `FAILED`, `STOPPED`); the entries of that sync between them (pages, upload
/// intents and outcomes) are its steps. Local edits are soup entries that name no sync;
/// consecutive ones are one group.
struct TimelineGroup: Sendable {
    enum Kind: String, Sendable {
        case syncRun = "sync-run"
        case localEdits = "local-edits"
        case sync
        case other
    }

    var kind: Kind
    var syncId: String?
    var syncName: String?
    var soup: String?
    /// The run's outcome once its closing state entry is read; `RUNNING` while open.
    var status: String?
    /// The watermark (`maxTimeStamp`) the run started from, and the one it ended with.
    var watermarkBefore: JSONValue?
    var watermarkAfter: JSONValue?
    /// The closing state entry's payload: totals, error, failures.
    var outcome: JSONValue?
    var entries: [JournalEntry] = []

    /// Groups `entries` (in journal order).
    static func group(_ entries: [JournalEntry]) throws -> [TimelineGroup] {
        var groups: [TimelineGroup] = []
        var openRuns: [String: Int] = [:]
        for entry in entries {
            let syncId = entry.header["syncId"]?.description
            let status = entry.header["status"]?.string
            if entry.kind == .syncStateChanged, let syncId, status == "RUNNING" {
                let payload = try? entry.jsonPayload()
                var run = TimelineGroup(
                    kind: .syncRun, syncId: syncId, syncName: entry.header["syncName"]?.string,
                    soup: entry.header["soup"]?.string, status: status)
                run.watermarkBefore = payload?["maxTimeStamp"]
                run.entries = [entry]
                openRuns[syncId] = groups.count
                groups.append(run)
                continue
            }
            if let syncId, let index = openRuns[syncId] {
                groups[index].entries.append(entry)
                if entry.kind == .syncStateChanged {
                    let payload = try? entry.jsonPayload()
                    groups[index].status = status
                    groups[index].watermarkAfter = payload?["maxTimeStamp"]
                    groups[index].outcome = payload
                    openRuns[syncId] = nil
                }
                continue
            }
            let isLocalEdit = entry.kind.rawValue.hasPrefix("soup.") && syncId == nil
            if isLocalEdit, let last = groups.last, last.kind == .localEdits,
                last.soup == entry.header["soup"]?.string
            {
                groups[groups.count - 1].entries.append(entry)
                continue
            }
            groups.append(
                TimelineGroup(
                    kind: isLocalEdit ? .localEdits : syncId != nil ? .sync : .other, syncId: syncId,
                    syncName: entry.header["syncName"]?.string, soup: entry.header["soup"]?.string, status: status,
                    entries: [entry]))
        }
        return groups
    }

    /// The group as the timeline endpoint sends it, listing only the entries in `shown`;
    /// `conflictsFound` counts the open conflicts each entry found, by sequence.
    func json(showing shown: Set<UInt64>?, conflictsFound: [UInt64: Int] = [:]) -> JSONValue {
        let visible = entries.filter { shown?.contains($0.sequence) ?? true }
        var object: [String: JSONValue] = [
            "type": .string(kind.rawValue),
            "first": .number(JSONNumber(Int64(entries.first?.sequence ?? 0))),
            "last": .number(JSONNumber(Int64(entries.last?.sequence ?? 0))),
            "entries": .array(visible.map { Self.entryJSON($0, conflictsFound: conflictsFound) }),
        ]
        // The whole group's count, so a run whose pages are not all listed still shows it.
        let conflicts = entries.reduce(0) { $0 + (conflictsFound[$1.sequence] ?? 0) }
        if conflicts > 0 { object["conflicts"] = .number(JSONNumber(Int64(conflicts))) }
        if let syncId { object["syncId"] = .string(syncId) }
        if let syncName { object["syncName"] = .string(syncName) }
        if let soup { object["soup"] = .string(soup) }
        if let status { object["status"] = .string(status) }
        if let watermarkBefore { object["watermarkBefore"] = watermarkBefore }
        if let watermarkAfter { object["watermarkAfter"] = watermarkAfter }
        if let outcome {
            for key in ["totalSize", "fetchedCount", "changedCount", "error", "failures", "progress"] {
                if let value = outcome[key] { object[key] = value }
            }
        }
        return .object(object)
    }

    /// One entry as the pages show it: the `log` fields, its header, and a short summary;
    /// `conflicts`, the number of open conflicts it found (from `conflictsFound`, by sequence),
    /// when there are any, and `resolvesConflict` for a conflict's resolution.
    static func entryJSON(_ entry: JournalEntry, conflictsFound: [UInt64: Int] = [:]) -> JSONValue {
        var header: [String: JSONValue] = [:]
        for (name, value) in entry.header { header[name] = .string(value.description) }
        var object: [String: JSONValue] = [
            "sequence": .number(JSONNumber(Int64(entry.sequence))),
            "timestamp": .string(entry.timestamp.salesforceFormat),
            "kind": .string(entry.kind.rawValue),
            "header": .object(header),
            "summary": .string(summary(of: entry)),
            "records": .array(recordNames(in: entry)),
        ]
        if let count = conflictsFound[entry.sequence], count > 0 {
            object["conflicts"] = .number(JSONNumber(Int64(count)))
        }
        if entry.kind == .syncConflictResolved { object["resolvesConflict"] = true }
        return .object(object)
    }

    /// The most records of one entry the timeline links to; the record page has the rest.
    static let linkedRecordsMax = 12

    /// The records an entry carries (a save, a fetched page), as `{soup, id}` to link to.
    static func recordNames(in entry: JournalEntry) -> [JSONValue] {
        // A save holds `{"records": […]}`, a fetched page the array of records itself, a
        // conflict's resolution `{entryId, record}`.
        guard entry.payloadFormat == .json, let soup = entry.header["soup"]?.string,
            let payload = try? entry.jsonPayload()
        else { return [] }
        if entry.kind == .syncConflictResolved, let entryId = payload["entryId"]?.number?.text {
            return [["soup": .string(soup), "id": .string(payload["record"]?["Id"]?.string ?? entryId)]]
        }
        guard let records = payload["records"]?.array ?? payload.array else { return [] }
        return records.prefix(linkedRecordsMax).compactMap { record in
            let id = record["Id"]?.string ?? record["_soupEntryId"]?.number?.text
            return id.map { ["soup": .string(soup), "id": .string($0)] }
        }
    }

    /// A few words on what the entry did, for a person scanning the timeline.
    static func summary(of entry: JournalEntry) -> String {
        let header = entry.header
        switch entry.kind {
        case .syncDownPageFetched:
            let since = header[SyncHeader.modifiedSince]?.description ?? "?"
            let until = header[SyncHeader.maxTimeStamp]?.description ?? "?"
            let count = header[SyncHeader.recordCount]?.description ?? "?"
            return "page \(header[SyncHeader.page]?.description ?? "?"): \(count) records, window \(since) → \(until)"
        case .syncStateChanged, .syncCreated:
            return
                "\(header[SyncHeader.syncName]?.description ?? "sync \(header[SyncHeader.syncId]?.description ?? "?")") "
                + "\(header[SyncHeader.status]?.description ?? "")"
        case SoupEntryKind.saved.kind:
            let count = (try? entry.jsonPayload())?["records"]?.array?.count ?? 0
            return "\(count) record\(count == 1 ? "" : "s") saved in \(header["soup"]?.description ?? "?")"
        default:
            let text = header.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            return text
        }
    }
}
