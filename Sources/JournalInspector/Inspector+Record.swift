import Determinism
import EventJournal
import LosslessJSON
import MobileSync
import ToolSupport

extension Inspector {
    /// A record's history (`blame`'s events for `soup` and `id`) up to `asOf`, each event with
    /// the fields it changed against the event before, the record as of that entry, and the
    /// sync run or local edit that made each change.
    func record(_ request: InspectorRequest) throws -> JSONValue {
        let asOf = try asOf(request)
        let last = try store.journal.lastSequence()
        let history = try history(request)
        let events = history.events.filter { $0.sequence <= asOf ?? last }
        let groups = try TimelineGroup.group(try entries(through: asOf ?? last))
        var previous: JSONValue?
        var shown: [JSONValue] = []
        for event in events {
            var object: [String: JSONValue] = [
                "sequence": number(event.sequence), "timestamp": .string(event.timestamp.salesforceFormat),
                "kind": .string(event.kind.rawValue), "action": .string(event.action),
                "changes": .array(Self.changes(from: previous, to: event.record)),
                "cause": Self.cause(of: event.sequence, in: groups),
            ]
            if let record = event.record {
                object["record"] = record
                previous = record
            }
            shown.append(.object(object))
        }
        return [
            "soup": .string(history.soup), "id": .string(history.id), "asOf": number(asOf ?? last),
            "lastSequence": number(last), "horizon": number(try store.journal.horizon().firstSequence),
            "record": previous ?? .null, "events": .array(shown),
        ]
    }

    /// The fields that differ between two versions of a record, in field order: each
    /// `{field, before, after}`, a missing side `null`.
    static func changes(from before: JSONValue?, to after: JSONValue?) -> [JSONValue] {
        let old = before?.object ?? [:]
        let new = after?.object ?? [:]
        return Set(old.keys).union(new.keys).sorted().compactMap { field in
            guard old[field] != new[field] else { return nil }
            return ["field": .string(field), "before": old[field] ?? .null, "after": new[field] ?? .null]
        }
    }

    /// What made the change at `sequence`: the sync run holding it, or local edits.
    static func cause(of sequence: UInt64, in groups: [TimelineGroup]) -> JSONValue {
        guard let group = groups.first(where: { $0.entries.contains { $0.sequence == sequence } }) else { return .null }
        var object: [String: JSONValue] = [
            "type": .string(group.kind.rawValue),
            "first": .number(JSONNumber(Int64(group.entries.first?.sequence ?? 0))),
        ]
        if let syncId = group.syncId { object["syncId"] = .string(syncId) }
        if let name = group.syncName { object["syncName"] = .string(name) }
        if let status = group.status { object["status"] = .string(status) }
        return .object(object)
    }
}
