public import LosslessJSON
import Soups

/// A conflict a MERGE_FIELDS sync found on one record: a field both the app and the server
/// changed to different values, or a record one side deleted while the other changed it
/// (docs/conflicts.md).
///
/// The local values stay in the record until the conflict is resolved
/// (``SyncStore/resolveConflict(soup:entryId:_:)``); the server's are kept here. The fold
/// derives conflicts from the journal's entries, so a replay or a rebuild finds the same ones.
public struct RecordConflict: Hashable, Sendable {
    /// The soup of the record.
    public var soup: String
    /// The record's `_soupEntryId`.
    public var entryId: Int64
    /// The record's server id (its id field), when it has one.
    public var id: String?
    /// What conflicts.
    public var kind: Kind
    /// The fields in conflict, by path; for a record-level conflict, the fields the side that
    /// did not delete changed.
    public var fields: [Field]
    /// The sync that found the conflict.
    public var syncId: Int64
    /// The journal entry whose fold found it (the fetched page, or the upload's outcome).
    public var entrySequence: UInt64

    /// What a ``RecordConflict`` is about.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// Fields changed on both sides to different values.
        case fields
        /// The record was deleted locally and changed on the server.
        case deletedLocally
        /// The record was changed locally and deleted on the server.
        case deletedOnServer
    }

    /// One field in conflict: its value in the base (the server copy the local change started
    /// from), in the local record and on the server; `nil` where the field is absent.
    public struct Field: Hashable, Sendable {
        /// The field's name (a top-level member of the record).
        public var path: String
        /// The value the local change started from.
        public var base: JSONValue?
        /// The local value, which the record holds until the conflict is resolved.
        public var local: JSONValue?
        /// The server's value.
        public var server: JSONValue?

        /// A field in conflict.
        public init(path: String, base: JSONValue?, local: JSONValue?, server: JSONValue?) {
            self.path = path
            self.base = base
            self.local = local
            self.server = server
        }
    }

    /// A conflict.
    public init(
        soup: String, entryId: Int64, id: String?, kind: Kind, fields: [Field], syncId: Int64, entrySequence: UInt64
    ) {
        self.soup = soup
        self.entryId = entryId
        self.id = id
        self.kind = kind
        self.fields = fields
        self.syncId = syncId
        self.entrySequence = entrySequence
    }
}

extension RecordConflict {
    private enum Member {
        static let kind = "kind"
        static let id = "id"
        static let fields = "fields"
        static let path = "path"
        static let base = "base"
        static let local = "local"
        static let server = "server"
        static let syncId = "syncId"
        static let entry = "entry"
    }

    /// The conflict as the dirty set keeps it (`DirtyNote.conflict`), without its soup and
    /// entry id, which the note's key holds. An absent value is an absent member.
    var noteJSON: JSONValue {
        var members: [String: JSONValue] = [
            Member.kind: .string(kind.rawValue),
            Member.fields: .array(fields.map(Self.json)),
            Member.syncId: .number(JSONNumber(syncId)),
            Member.entry: .number(JSONNumber(Int64(clamping: entrySequence))),
        ]
        if let id { members[Member.id] = .string(id) }
        return .object(members)
    }

    /// The conflict as `msync conflicts --json` prints it: `{soup, id, entryId, kind, fields:
    /// [{path, base, local, server}]}`, an absent value as JSON null.
    public var json: JSONValue {
        .object([
            "soup": .string(soup), Member.id: id.map(JSONValue.string) ?? .null,
            "entryId": .number(JSONNumber(entryId)), Member.kind: .string(kind.rawValue),
            Member.fields: .array(
                fields.map { field in
                    .object([
                        Member.path: .string(field.path), Member.base: field.base ?? .null,
                        Member.local: field.local ?? .null, Member.server: field.server ?? .null,
                    ])
                }),
            Member.syncId: .number(JSONNumber(syncId)),
            Member.entry: .number(JSONNumber(Int64(clamping: entrySequence))),
        ])
    }

    private static func json(_ field: Field) -> JSONValue {
        var members: [String: JSONValue] = [Member.path: .string(field.path)]
        if let base = field.base { members[Member.base] = base }
        if let local = field.local { members[Member.local] = local }
        if let server = field.server { members[Member.server] = server }
        return .object(members)
    }

    /// Reads a conflict the dirty set keeps; `nil` for a note that is not one.
    init?(note: JSONValue, soup: String, entryId: Int64) {
        guard let kind = note[Member.kind]?.string.flatMap(Kind.init(rawValue:)),
            let fields = note[Member.fields]?.array,
            let syncId = note[Member.syncId]?.number?.int64Value,
            let entry = note[Member.entry]?.number?.int64Value
        else { return nil }
        self.init(
            soup: soup, entryId: entryId, id: note[Member.id]?.string, kind: kind,
            fields: fields.compactMap { field in
                field[Member.path]?.string.map {
                    Field(path: $0, base: field[Member.base], local: field[Member.local], server: field[Member.server])
                }
            }, syncId: syncId, entrySequence: UInt64(clamping: entry))
    }

    /// The conflict as the record stands now: each field's local value read from `record` (the
    /// app may have edited it since), and a field whose local value now equals the server's no
    /// longer in conflict; `nil` when no field of a field conflict is left.
    func current(in record: JSONValue) -> RecordConflict? {
        var current = self
        current.fields = fields.compactMap { field in
            var field = field
            field.local = record[field.path]
            return kind == .fields && field.local == field.server ? nil : field
        }
        return kind == .fields && current.fields.isEmpty ? nil : current
    }

    /// The open conflict a dirty record's note holds, as the record stands now
    /// (``current(in:)``).
    static func open(_ note: DirtyNote?, record: JSONValue, soup: String, entryId: Int64) -> RecordConflict? {
        note?.conflict.flatMap { RecordConflict(note: $0, soup: soup, entryId: entryId)?.current(in: record) }
    }

    /// This conflict after the record changed to `local` and the server's copy to `server`:
    /// fields whose local and server values now agree are no longer in conflict.
    func carried(local: [String: JSONValue], server: [String: JSONValue]) -> RecordConflict {
        var carried = self
        carried.fields = fields.compactMap { field in
            var field = field
            if let value = server[field.path] { field.server = value }
            field.local = local[field.path]
            return field.local == field.server ? nil : field
        }
        return carried
    }
}
