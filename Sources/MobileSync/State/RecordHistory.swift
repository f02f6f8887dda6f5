public import Determinism
public import EventJournal
public import LosslessJSON
import Soups

/// The journal entries that shaped one record of a soup: what `journal-replay blame` prints.
///
/// A record is named the way `msync get` names it: by the value of its id field (`Id` unless a
/// sync down says otherwise) or by its `_soupEntryId`. The history follows the record through
/// identity changes: a local record that later gets a server id keeps its `_soupEntryId`, and a
/// record removed and fetched again under the same id gets a new one; both are followed.
///
/// The history is the fold's own account, not a second reading of the entries: the journal is
/// folded again, from its horizon, into a scratch copy of the projections whose soup fold
/// reports every change of the soup's records and every sync rule's decision
/// (`SoupFoldTrace`). So each event says what the fold did and why, under the same rules
/// (merge modes, reSync windows, ownership, a parent kept for a dirty child), and the last event
/// holds the record as the store holds it. Reading a history only reads the store; it works for
/// deleted records, and costs one fold of the journal.
public struct RecordHistory: Sendable {
    /// One entry that touched the record.
    public struct Event: Hashable, Sendable {
        /// The entry's sequence number.
        public var sequence: UInt64
        /// When the entry was appended.
        public var timestamp: WallTime
        /// The entry's kind.
        public var kind: JournalEntry.Kind
        /// The `_soupEntryId` of the record the event is about: a record removed and fetched
        /// again under the same id is a new record, with a new one.
        public var entryId: Int64
        /// What the entry's fold did to the record and why, in a few words ("created locally",
        /// "fetched by sync 3, kept the local change").
        public var action: String
        /// The record as the entry's fold left it; `nil` when the fold removed it.
        public var record: JSONValue?
    }

    /// The soup the record lives in.
    public let soup: String
    /// The id the history was asked for.
    public let id: String
    /// The entries that touched the record, in journal order.
    public let events: [Event]

    /// The events about the record `entryId` only, in journal order.
    public func events(ofEntryId entryId: Int64) -> [Event] {
        events.filter { $0.entryId == entryId }
    }

    /// Reads the history of the record `id` of `soup` from `journal`.
    ///
    /// - Throws: `JournalError` when the journal cannot be read or folded.
    public init(journal: Journal, soup: String, id: String) throws {
        self.init(soup: soup, id: id, steps: try Self.steps(of: soup, in: journal))
    }

    /// Reads the histories of the records `ids` of `soup` from `journal`, with one fold.
    ///
    /// - Returns: one history per id, in the order of `ids`.
    /// - Throws: `JournalError` when the journal cannot be read or folded.
    public static func histories(journal: Journal, soup: String, ids: [String]) throws -> [RecordHistory] {
        let steps = try steps(of: soup, in: journal)
        return ids.map { RecordHistory(soup: soup, id: $0, steps: steps) }
    }

    /// What the fold did to the records of `soup`, step by step.
    private static func steps(of soup: String, in journal: Journal) throws -> [SoupFoldTrace.Step] {
        let trace = SoupFoldTrace(soupName: soup)
        let traced = journal.projections.map { projection -> any Projection in
            guard let soups = projection as? SoupProjection else { return projection }
            return SoupProjection(rules: soups.rules, trace: trace)
        }
        try journal.refold(into: traced)
        return trace.steps
    }

    private init(soup: String, id: String, steps: [SoupFoldTrace.Step]) {
        self.soup = soup
        self.id = id
        let entryIds = Self.entryIds(naming: id, in: steps)
        var existing: Set<Int64> = []
        var events: [Event] = []
        var lastStep: (sequence: UInt64, entryId: Int64)?
        for step in steps where entryIds.contains(step.entryId) {
            let existed = existing.contains(step.entryId)
            if step.record == nil { existing.remove(step.entryId) } else { existing.insert(step.entryId) }
            let action = step.reason ?? Self.action(of: step, existed: existed)
            // One entry that wrote the record twice is one event, ending as the entry left it.
            if let lastStep, lastStep == (step.sequence, step.entryId) {
                events[events.count - 1].record = step.record
                if step.reason != nil { events[events.count - 1].action = action }
                continue
            }
            lastStep = (step.sequence, step.entryId)
            events.append(
                Event(
                    sequence: step.sequence, timestamp: step.timestamp, kind: step.kind, entryId: step.entryId,
                    action: action, record: step.record))
        }
        self.events = events
    }

    /// The `_soupEntryId`s that name the record `id`: `id` itself when it is a number, and every
    /// record whose id field held `id` at some step; then, closing over the server ids those
    /// records had, the records that held one of them (a record removed and fetched again).
    private static func entryIds(naming id: String, in steps: [SoupFoldTrace.Step]) -> Set<Int64> {
        var entryIds: Set<Int64> = Int64(id).map { [$0] } ?? []
        var serverIds: Set<String> = [id]
        var grew = true
        while grew {
            grew = false
            for step in steps {
                guard let name = step.serverId ?? step.record?["Id"]?.string else { continue }
                if entryIds.contains(step.entryId) != serverIds.contains(name) {
                    entryIds.insert(step.entryId)
                    serverIds.insert(name)
                    grew = true
                }
            }
        }
        return entryIds
    }

    /// What ends the action of a step of a rule's entry that the rule did not explain: every
    /// rule explains each record it writes or removes, so this is a rule's omission.
    static let unexplained = " (no rule said why)"

    /// What a step that no rule explained did: the soups' own entries.
    private static func action(of step: SoupFoldTrace.Step, existed: Bool) -> String {
        switch step.kind.rawValue {
        case SoupEntryKind.saved.rawValue:
            guard let record = step.record else { return "saved" }
            if record[LocalFlags.locallyDeleted]?.bool == true { return "deleted locally" }
            if record[LocalFlags.locallyCreated]?.bool == true {
                return existed ? "updated locally" : "created locally"
            }
            if record[LocalFlags.locallyUpdated]?.bool == true { return "updated locally" }
            return existed ? "saved" : "created"
        case JournalEntry.Kind.soupImported.rawValue, JournalEntry.Kind.smartStoreImported.rawValue:
            return "imported from SmartStore"
        case SoupEntryKind.deleted.rawValue: return "removed"
        case SoupEntryKind.cleared.rawValue: return "soup cleared"
        case SoupEntryKind.dropped.rawValue: return "soup dropped"
        default: return "\(step.record == nil ? "removed" : "changed") by \(step.kind)\(Self.unexplained)"
        }
    }
}
