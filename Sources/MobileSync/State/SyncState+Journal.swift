public import EventJournal
import LosslessJSON
import Soups

extension SyncState {
    /// The entry recording that this sync was created: kind `sync.created`.
    public var createdEntryDraft: JournalEntry.Draft {
        draft(kind: .syncCreated)
    }

    /// The entry recording this state as the sync's new state: kind `sync.state.changed`.
    public var changedEntryDraft: JournalEntry.Draft {
        draft(kind: .syncStateChanged)
    }

    /// Reads a state back from a `sync.created` or `sync.state.changed` entry.
    ///
    /// - Throws: ``SyncError/Code/malformedEntry`` when the entry is of another kind, its payload
    ///   is not JSON, or its `syncId` header disagrees with the payload; the state's own parse
    ///   errors otherwise.
    public init(journalEntry entry: JournalEntry) throws(SyncError) {
        guard entry.kind == .syncCreated || entry.kind == .syncStateChanged else {
            throw SyncError(.malformedEntry, "Entry \(entry.sequence) is \(entry.kind), not a sync state entry.")
        }
        let json: JSONValue
        do {
            json = try entry.jsonPayload()
        } catch {
            throw SyncError(
                .malformedEntry, "Entry \(entry.sequence) (\(entry.kind)): payload is not JSON.", cause: error)
        }
        try self.init(json: json)
        let headerId = try EntryHeader(entry).integer(SyncHeader.syncId)
        guard headerId == id else {
            throw SyncError(
                .malformedEntry,
                "Entry \(entry.sequence) (\(entry.kind)): header syncId \(headerId) differs from state id \(id).")
        }
    }

    private func draft(kind: JournalEntry.Kind) -> JournalEntry.Draft {
        var header: [String: JournalEntry.HeaderValue] = [
            SyncHeader.syncId: .integer(id), SyncHeader.soup: .string(soupName),
            SyncHeader.status: .string(status.rawValue),
        ]
        if let name { header[SyncHeader.syncName] = .string(name) }
        return JournalEntry.Draft(kind: kind, header: header, json: json)
    }
}
