package import EventJournal
import LMDBStore
package import LosslessJSON
import Soups

/// The uploads whose intent is journaled but whose outcome is not: what a restart reconciles.
///
/// A `sync.up.intent` adds its request; the `sync.up.outcome` with the same `requestId`
/// removes it. After a crash between the two, the request is still here, so the next sync up
/// knows exactly which records may have reached the server (DESIGN invariant 6). Each pending
/// upload keeps its intent entry from compaction (`intentSequence`), so support can still read
/// what was sent while its outcome is unknown.
package struct PendingUploadsProjection: Projection {
    package let name = "syncs.uploads"
    package let version = 2
    package var databaseNames: [String] { [Self.databaseName] }

    static let databaseName = "syncs.uploads.pending"

    /// Creates the projection.
    package init() {}

    package func apply(_ entry: JournalEntry, in context: ProjectionContext) throws {
        guard entry.kind == .syncUpIntent || entry.kind == .syncUpOutcome else { return }
        guard let requestId = entry.header[SyncHeader.requestId]?.string,
            let syncId = entry.header[SyncHeader.syncId]?.integer
        else {
            throw SyncError(.malformedEntry, "Entry \(entry.sequence) (\(entry.kind)) lacks its requestId or syncId.")
        }
        let database = context.database(named: Self.databaseName)
        let key = Self.key(syncId: syncId, requestId: requestId)
        if entry.kind == .syncUpOutcome {
            _ = try context.transaction.delete(database, key: key)
            return
        }
        var intent = try entry.jsonPayload()
        if case .object(var fields) = intent {
            for (name, value) in entry.header {
                switch value {
                case .string(let text): fields[name] = .string(text)
                case .integer(let number): fields[name] = .number(JSONNumber(number))
                case .bool(let flag): fields[name] = .bool(flag)
                }
            }
            fields[Self.intentSequenceField] = .number(JSONNumber(Int64(entry.sequence)))
            intent = .object(fields)
        }
        try context.transaction.put(database, key: key, value: intent.serialized())
    }

    /// The field of a pending upload that holds the sequence of its intent entry.
    static let intentSequenceField = "intentSequence"

    /// The oldest intent still pending: compaction keeps it and everything after.
    package func oldestNeededSequence(in context: ProjectionContext) throws -> UInt64? {
        var oldest: UInt64?
        try context.transaction.withCursor(context.database(named: Self.databaseName)) { cursor in
            try cursor.forEach { _, value in
                if let sequence = try JSONValue(parsing: value)[Self.intentSequenceField]?.number?.int64Value {
                    oldest = min(oldest ?? UInt64(sequence), UInt64(sequence))
                }
                return true
            }
        }
        return oldest
    }

    /// Keys sort by sync id, then request id, so one sync's pending uploads are one range.
    static func key(syncId: Int64, requestId: String) -> [UInt8] {
        var key = withUnsafeBytes(of: UInt64(bitPattern: syncId).bigEndian) { Array($0) }
        key.append(contentsOf: requestId.utf8)
        return key
    }
}

extension SyncStore {
    /// The uploads of sync `syncId` that were journaled as intended but never answered: each
    /// is the intent payload plus its header fields (`requestId`, `soup`, `idFieldName`, …),
    /// ordered by request id.
    ///
    /// - Throws: `JournalError` when the store cannot be read.
    package func pendingUploads(syncId: Int64) throws -> [JSONValue] {
        try journal.read { reader in
            let database = reader.database(named: PendingUploadsProjection.databaseName)
            let prefix = PendingUploadsProjection.key(syncId: syncId, requestId: "")
            var intents: [JSONValue] = []
            try reader.transaction.withCursor(database) { cursor in
                try cursor.forEach(in: .prefix(prefix)) { _, value in
                    intents.append(try JSONValue(parsing: value))
                    return true
                }
            }
            return intents
        }
    }
}
