import EventJournal
import LosslessJSON
import MobileSync
import Soups

// The Conflicts page and the timeline's conflict marks (docs/inspector.md, decision 0365).
// Conflicts are read as `msync conflicts` reads them, from the soups' dirty set now; the
// entries behind each value come from the record's history, the fold's own account.
extension Inspector {
    /// The open MERGE_FIELDS conflicts, optionally of one `soup`: each as
    /// `msync conflicts --json` prints it, with the entries that produced its values.
    ///
    /// Each field gains `baseEntry`, `localEntry` and `serverEntry`: the sequence of the entry
    /// that gave the field its base, local and server value (`null` when the history holds no
    /// such entry, such as one compacted away). A record-level conflict gains `deletedBy`, the
    /// entry that deleted the record on its side. At most ``conflictsShownMax`` conflicts are
    /// listed; `openCount` counts them all.
    ///
    /// - Throws: ``InspectorError/Code/badRequest`` for `asOf`: the dirty set holds the
    ///   conflicts of the current state only.
    func conflicts(_ request: InspectorRequest) throws -> JSONValue {
        guard request["asOf"] == nil else {
            throw InspectorError(
                .badRequest, "conflicts are read from the current state; the timeline shows where they were found")
        }
        let soup = request["soup"]
        let open = try soup.map { try store.conflicts(soup: $0) } ?? store.conflicts()
        let shown = Array(open.prefix(Self.conflictsShownMax))
        var listed: [JSONValue] = []
        for (soupName, conflicts) in Dictionary(grouping: shown, by: \.soup).sorted(by: { $0.key < $1.key }) {
            // One fold of the journal gives every conflicted record's history in the soup.
            let histories = try RecordHistory.histories(
                journal: store.journal, soup: soupName, ids: conflicts.map { String($0.entryId) })
            for (conflict, history) in zip(conflicts, histories) {
                listed.append(Self.json(conflict, events: history.events(ofEntryId: conflict.entryId)))
            }
        }
        return [
            "lastSequence": number(try store.journal.lastSequence()), "soup": soup.map(JSONValue.string) ?? .null,
            "openCount": .number(JSONNumber(Int64(open.count))), "conflicts": .array(listed),
        ]
    }

    /// The most conflicts the Conflicts page lists: each costs a look through its record's
    /// history, and a page of them is what a person reads.
    static let conflictsShownMax = 200

    /// How many open conflicts each entry found, by sequence: what the timeline marks.
    ///
    /// A conflict names the page or upload outcome whose fold found it (a later page that
    /// carries it names itself), so the open conflicts tell which entries found them without
    /// reading any entry. A resolved conflict no longer counts; its resolution is marked instead.
    func conflictsFound() throws -> [UInt64: Int] {
        var found: [UInt64: Int] = [:]
        for conflict in try store.conflicts() { found[conflict.entrySequence, default: 0] += 1 }
        return found
    }

    /// `conflict` as `msync conflicts --json` prints it, with the entries among `events` (its
    /// record's history) that produced each value.
    static func json(_ conflict: RecordConflict, events: [RecordHistory.Event]) -> JSONValue {
        guard case .object(var object) = conflict.json else { return conflict.json }
        object["fields"] = .array(
            conflict.fields.map { field -> JSONValue in
                let localEntry = lastChange(of: field.path, to: field.local, in: events)
                let baseEntry = lastChange(
                    of: field.path, to: field.base, in: events, through: localEntry ?? conflict.entrySequence)
                return [
                    "path": .string(field.path), "base": field.base ?? .null, "local": field.local ?? .null,
                    "server": field.server ?? .null, "baseEntry": sequence(baseEntry),
                    "localEntry": sequence(localEntry), "serverEntry": sequence(conflict.entrySequence),
                ]
            })
        switch conflict.kind {
        case .fields: break
        case .deletedLocally:
            object["deletedBy"] = sequence(lastChange(of: LocalFlags.locallyDeleted, to: true, in: events))
        case .deletedOnServer: object["deletedBy"] = sequence(conflict.entrySequence)
        }
        return .object(object)
    }

    /// The last event, at or before `last`, whose fold changed the record's `path` to `value`
    /// (`nil` meaning absent); `nil` when no event in the history did.
    static func lastChange(
        of path: String, to value: JSONValue?, in events: [RecordHistory.Event], through last: UInt64 = .max
    ) -> UInt64? {
        var found: UInt64?
        var previous: JSONValue?
        var isFirst = true
        for event in events where event.sequence <= last {
            let current = event.record?[path]
            // The first event (the oldest kept) gave the record whatever it then held.
            if current == value, isFirst || current != previous { found = event.sequence }
            previous = current
            isFirst = false
        }
        return found
    }

    private static func sequence(_ value: UInt64?) -> JSONValue {
        value.map { .number(JSONNumber(Int64(clamping: $0))) } ?? .null
    }
}
