import EventJournal
import LosslessJSON

/// A `sync.conflict.resolved` entry: the one writer and reader of its format.
///
/// Header `soup`; payload `{entryId, version, record, remaining}`: the record's
/// `_soupLastModifiedDate` when the resolution was decided, the record as resolved (`null`
/// when the resolution removes it) and the conflict that stays (`null` when none).
struct ConflictResolutionEntry {
    var soupName: String
    var entryId: Int64
    var version: JSONValue?
    var record: JSONValue
    var remaining: RecordConflict?

    private enum Member {
        static let entryId = "entryId"
        static let version = "version"
        static let record = "record"
        static let remaining = "remaining"
    }

    init(soupName: String, entryId: Int64, version: JSONValue?, record: JSONValue, remaining: RecordConflict?) {
        self.soupName = soupName
        self.entryId = entryId
        self.version = version
        self.record = record
        self.remaining = remaining
    }

    /// The entry to append.
    var journalDraft: JournalEntry.Draft {
        JournalEntry.Draft(
            kind: .syncConflictResolved, header: [SyncHeader.soup: .string(soupName)],
            json: .object([
                Member.entryId: .number(JSONNumber(entryId)), Member.version: version ?? .null, Member.record: record,
                Member.remaining: remaining?.noteJSON ?? .null,
            ]))
    }

    /// Reads a resolution back from its entry.
    /// - Throws: ``SyncError/Code/malformedEntry``.
    init(journalEntry entry: JournalEntry) throws(SyncError) {
        guard entry.kind == .syncConflictResolved, let soupName = entry.header[SyncHeader.soup]?.string,
            let payload = try? entry.jsonPayload(), let entryId = payload[Member.entryId]?.number?.int64Value,
            let record = payload[Member.record]
        else {
            throw SyncError(.malformedEntry, "Entry \(entry.sequence) is not a well-formed \(entry.kind) entry.")
        }
        let remaining = payload[Member.remaining].flatMap { note in
            note.isNull ? nil : RecordConflict(note: note, soup: soupName, entryId: entryId)
        }
        self.init(
            soupName: soupName, entryId: entryId, version: payload[Member.version], record: record,
            remaining: remaining)
    }
}
