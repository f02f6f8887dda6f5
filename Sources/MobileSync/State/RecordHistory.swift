public import Determinism
public import EventJournal
public import LosslessJSON
import Soups

/// The journal entries that shaped one record of a soup: what `journal-replay blame` prints.
///
/// A record is named the way `msync get` names it: by the value of its id field (`Id` unless a
/// sync down says otherwise) or by its `_soupEntryId`. The history follows the record through
/// identity changes: once an entry shows a record with that id, its `_soupEntryId` is followed
/// too (a local record that later gets a server id keeps its entry id), and the other way round.
///
/// Reading the history is a scan of the soup's entries; it reads the journal only, so it works
/// for deleted records and on stores whose projections are being rebuilt.
public struct RecordHistory: Sendable {
    /// One entry that touched the record.
    public struct Event: Hashable, Sendable {
        /// The entry's sequence number.
        public var sequence: UInt64
        /// When the entry was appended.
        public var timestamp: WallTime
        /// The entry's kind.
        public var kind: JournalEntry.Kind
        /// What the entry did to the record, in a few words ("created locally", "fetched by sync 3").
        public var action: String
        /// The record as that entry carried it, when it carried one.
        public var record: JSONValue?
    }

    /// The soup the record lives in.
    public let soup: String
    /// The id the history was asked for.
    public let id: String
    /// The entries that touched the record, in journal order.
    public let events: [Event]

    /// Reads the history of the record `id` of `soup` from `journal`.
    ///
    /// - Throws: `JournalError` when the journal cannot be read, `JSONParseError` when an entry
    ///   of a soup or sync kind holds malformed JSON.
    public init(journal: Journal, soup: String, id: String) throws {
        self.soup = soup
        self.id = id
        // Two passes: the first learns every name the record had (a local id, then a server id
        // from an upload outcome), so the second shows entries from before a name appeared.
        var aliases = Aliases(id: id)
        try Self.forEachEntry(of: soup, in: journal) { try aliases.learn(from: $0) }
        let names = aliases.closure()
        var fold = Fold(soup: soup, entryIds: names.entryIds, serverIds: names.serverIds)
        try Self.forEachEntry(of: soup, in: journal) { try fold.fold($0) }
        events = fold.events
    }

    private static func forEachEntry(
        of soup: String, in journal: Journal, _ body: (JournalEntry) throws -> Void
    ) throws {
        try journal.read { reader in
            // A compacted journal tells the history from its horizon on.
            let (first, last) = (try reader.firstSequence, try reader.lastSequence)
            guard last >= first else { return }
            try reader.forEachEntry(in: first...last) { entry in
                // Children of a parent/children sync are named by `childrenSoup`; a cleaning of
                // several soups lists the others in its payload, which the fold reads.
                if entry.header[SyncHeader.soup]?.string == soup
                    || entry.header[SyncHeader.childrenSoup]?.string == soup
                    || entry.kind == .syncGhostsCleaned
                {
                    try body(entry)
                }
                return true
            }
        }
    }
}

/// Which `_soupEntryId`s and id-field values name the same record: pairs seen in saved
/// records, fetched pages and upload outcomes, closed from the id asked for.
private struct Aliases {
    private var pairs: [(entryId: Int64, serverId: String)] = []
    private let id: String

    init(id: String) {
        self.id = id
    }

    mutating func learn(from entry: JournalEntry) throws {
        switch entry.kind.rawValue {
        case SoupEntryKind.saved.rawValue, JournalEntry.Kind.soupImported.rawValue:
            for record in try entry.jsonPayload()["records"]?.array ?? [] {
                guard let entryId = record[SoupStore.entryIdField]?.number?.int64Value,
                    let serverId = record["Id"]?.string
                else { continue }
                pairs.append((entryId, serverId))
            }
        case JournalEntry.Kind.syncUpOutcome.rawValue:
            for outcome in try entry.jsonPayload()[SyncPayload.outcomes]?.array ?? [] {
                guard let entryId = outcome[SyncPayload.entryId]?.number?.int64Value,
                    let serverId = outcome[SyncPayload.serverId]?.string
                else { continue }
                pairs.append((entryId, serverId))
            }
        default:
            break
        }
    }

    func closure() -> (entryIds: Set<Int64>, serverIds: Set<String>) {
        var entryIds: Set<Int64> = Int64(id).map { [$0] } ?? []
        var serverIds: Set<String> = [id]
        var grew = true
        while grew {
            grew = false
            for pair in pairs where entryIds.contains(pair.entryId) != serverIds.contains(pair.serverId) {
                entryIds.insert(pair.entryId)
                serverIds.insert(pair.serverId)
                grew = true
            }
        }
        return (entryIds, serverIds)
    }
}

/// The walk over the journal: which ids name the record so far, and whether it is dirty.
private struct Fold {
    var events: [RecordHistory.Event] = []
    private var entryIds: Set<Int64> = []
    private var serverIds: Set<String> = []
    private var isDirtyNow = false
    private var exists = false
    /// The `_soupLastModifiedDate` of the record as last saved, to match upload outcomes.
    private var version: JSONValue?
    /// The soup whose record this is.
    private let soup: String

    init(soup: String, entryIds: Set<Int64>, serverIds: Set<String>) {
        self.soup = soup
        self.entryIds = entryIds
        self.serverIds = serverIds
    }

    mutating func fold(_ entry: JournalEntry) throws {
        switch entry.kind.rawValue {
        case SoupEntryKind.saved.rawValue, JournalEntry.Kind.soupImported.rawValue:
            for record in try entry.jsonPayload()["records"]?.array ?? [] where matches(record, idField: "Id") {
                let imported = entry.kind == .soupImported
                note(entry, action: imported ? "imported from SmartStore" : savedAction(record), record: record)
                follow(record, idField: "Id")
                isDirtyNow = LocalFlags.isDirty(record)
                version = record[SoupStore.lastModifiedDateField]
                exists = true
            }
        case SoupEntryKind.deleted.rawValue:
            let ids = try entry.jsonPayload()["ids"]?.array ?? []
            if ids.contains(where: { $0.number?.int64Value.map(entryIds.contains) ?? false }) {
                note(entry, action: "removed", record: nil)
                exists = false
            }
        case SoupEntryKind.cleared.rawValue, SoupEntryKind.dropped.rawValue:
            if exists {
                note(
                    entry,
                    action: entry.kind.rawValue == SoupEntryKind.cleared.rawValue ? "soup cleared" : "soup dropped",
                    record: nil)
                exists = false
            }
        case JournalEntry.Kind.syncDownPageFetched.rawValue:
            try foldPage(entry)
        case JournalEntry.Kind.syncUpOutcome.rawValue:
            try foldUploadOutcome(entry)
        case JournalEntry.Kind.syncGhostsCleaned.rawValue:
            try foldGhostCleaning(entry)
        default:
            break
        }
    }

    /// An upload's outcomes for this record: created (with its server id), deleted, refused.
    private mutating func foldUploadOutcome(_ entry: JournalEntry) throws {
        let syncId = entry.header[SyncHeader.syncId].map(\.description) ?? "?"
        for outcome in try entry.jsonPayload()[SyncPayload.outcomes]?.array ?? [] {
            guard let entryId = outcome[SyncPayload.entryId]?.number?.int64Value, entryIds.contains(entryId) else {
                continue
            }
            let kind = outcome[SyncPayload.outcome]?.string ?? "?"
            // The fold cleans the record only if it did not change while the request was out.
            if kind == SyncUpUpload.JournaledOutcome.Kind.created.rawValue
                || kind == SyncUpUpload.JournaledOutcome.Kind.updated.rawValue, outcome[SyncPayload.version] == version
            {
                isDirtyNow = false
            }
            switch kind {
            case SyncUpUpload.JournaledOutcome.Kind.created.rawValue:
                let serverId = outcome[SyncPayload.serverId]?.string ?? "?"
                serverIds.insert(serverId)
                let action =
                    outcome[SyncPayload.serverFields] == nil
                    ? "created on the server as \(serverId)" : "took over the server's record \(serverId)"
                note(entry, action: "\(action) by sync \(syncId)", record: nil)
            case SyncUpUpload.JournaledOutcome.Kind.deleted.rawValue:
                note(entry, action: "deleted by sync \(syncId)", record: nil)
                exists = false
            case SyncUpUpload.JournaledOutcome.Kind.failed.rawValue:
                note(entry, action: "refused by the server: \(outcome[SyncPayload.error]?.string ?? "")", record: nil)
            case SyncUpUpload.JournaledOutcome.Kind.skipped.rawValue:
                continue
            default:
                note(entry, action: "\(kind) by sync \(syncId)", record: nil)
            }
        }
    }

    /// A ghost cleaning that removed this record, as a ghost of its sync or as an unowned one.
    private mutating func foldGhostCleaning(_ entry: JournalEntry) throws {
        let syncId = entry.header[SyncHeader.syncId].map(\.description) ?? "?"
        let cleaning = try GhostCleaning(journalEntry: entry)
        // The lists of this soup: the cleaning's own when it names this soup, and those of
        // the related soups it also cleaned (children, other briefcase types).
        var lists: [(ghosts: [String], unowned: [String])] = []
        if cleaning.soupName == soup { lists.append((cleaning.ghostIds, cleaning.unownedGhostIds)) }
        for related in cleaning.related where related.soupName == soup {
            lists.append((related.ghostIds, related.unownedGhostIds))
        }
        if exists, !isDirtyNow, lists.contains(where: { $0.ghosts.contains(where: serverIds.contains) }) {
            note(entry, action: "removed as a ghost of sync \(syncId)", record: nil)
            exists = false
        } else if exists, !isDirtyNow, lists.contains(where: { $0.unowned.contains(where: serverIds.contains) }) {
            let reason = "no sync owned it and the server no longer has it"
            note(entry, action: "removed by the ghost cleaning of sync \(syncId): \(reason)", record: nil)
            exists = false
        }
    }

    /// A fetched page: its records when they go to this soup, or the children nested in them
    /// when this is the page's children soup (each shown with its parent's id, as stored).
    private mutating func foldPage(_ entry: JournalEntry) throws {
        let syncId = entry.header[SyncHeader.syncId].map(\.description) ?? "?"
        let leavesChanges =
            entry.header["leaveIfChanged"]?.bool == true
            || entry.header[SyncHeader.mergeMode]?.string == MergeMode.leaveIfChanged.rawValue
        let parentIdField = entry.header[SyncHeader.idFieldName]?.string ?? "Id"
        var records = try entry.jsonPayload().array ?? []
        var idField = parentIdField
        if entry.header[SyncHeader.soup]?.string != soup {
            guard let relationship = entry.header[SyncHeader.childrenRelationship]?.string,
                let parentIdFieldName = entry.header[SyncHeader.childParentIdFieldName]?.string
            else { return }
            idField = entry.header[SyncHeader.childIdFieldName]?.string ?? "Id"
            records = records.flatMap { parent in
                SyncDownPage.nestedChildren(of: parent, relationshipName: relationship).map { child in
                    guard case .object(var fields) = child else { return child }
                    fields[parentIdFieldName] = parent[parentIdField] ?? .null
                    return .object(fields)
                }
            }
        }
        for record in records where matches(record, idField: idField) {
            let skipped = isDirtyNow && leavesChanges
            let action = skipped ? "fetched by sync \(syncId), kept the local change" : "fetched by sync \(syncId)"
            note(entry, action: action, record: record)
            follow(record, idField: idField)
            if !skipped {
                isDirtyNow = false
                exists = true
            }
        }
    }

    private func matches(_ record: JSONValue, idField: String) -> Bool {

        if let entryId = record[SoupStore.entryIdField]?.number?.int64Value, entryIds.contains(entryId) { return true }
        if let serverId = record[idField]?.string, serverIds.contains(serverId) { return true }
        return false
    }

    private mutating func follow(_ record: JSONValue, idField: String) {
        if let entryId = record[SoupStore.entryIdField]?.number?.int64Value { entryIds.insert(entryId) }
        if let serverId = record[idField]?.string { serverIds.insert(serverId) }
    }

    private mutating func note(_ entry: JournalEntry, action: String, record: JSONValue?) {
        events.append(
            RecordHistory.Event(
                sequence: entry.sequence, timestamp: entry.timestamp, kind: entry.kind, action: action, record: record))
    }

    private func savedAction(_ record: JSONValue) -> String {
        if record[LocalFlags.locallyDeleted]?.bool == true { return "deleted locally" }
        if record[LocalFlags.locallyCreated]?.bool == true { return exists ? "updated locally" : "created locally" }
        if record[LocalFlags.locallyUpdated]?.bool == true { return "updated locally" }
        return exists ? "saved" : "created"
    }

}
