import LMDBStore
import LosslessJSON

/// A local create in flight as an upsert by an external id: the server may hold it already
/// while the journal has no outcome for it yet.
struct UploadingCreate {
    /// The local record's `_soupEntryId`.
    var entryId: Int64
    /// The external id field the create is upserted by.
    var field: String
    /// The external id the create carries, as sync up sends it (a number as its JSON text).
    var value: String

    /// Whether `fetched`, a record a sync down fetched, is the server copy of this create.
    func isServerCopy(_ fetched: JSONValue) -> Bool {
        guard let fetchedValue = SoupPath.project(fetched, field), !fetchedValue.isNull else { return false }
        return (fetchedValue.string ?? fetchedValue.serializedString) == value
    }
}

extension SoupState {
    /// Notes that the create of `entryId` is being upserted by `field` = `value`.
    func putUploadingCreate(_ create: UploadingCreate, soupId: UInt32) throws {
        let value: JSONValue = ["field": .string(create.field), "value": .string(create.value)]
        try transaction.put(
            databases.uploading, key: SoupDatabases.recordKey(soupId, create.entryId), value: value.serialized())
    }

    /// Forgets the upload of `entryId`: its outcome is journaled.
    func removeUploadingCreate(soupId: UInt32, entryId: Int64) throws {
        _ = try transaction.delete(databases.uploading, key: SoupDatabases.recordKey(soupId, entryId))
    }

    /// The creates of a soup in flight, by `_soupEntryId`. Usually none: an entry lives only
    /// between a sync up's intent and its outcome, or until a crash's upload is reconciled.
    func uploadingCreates(_ soupId: UInt32) throws -> [UploadingCreate] {
        var creates: [UploadingCreate] = []
        try transaction.withCursor(databases.uploading) { cursor in
            try cursor.forEach(in: .prefix(SoupDatabases.soupPrefix(soupId))) { key, bytes in
                let value = try Self.parse(bytes)
                guard let field = value["field"]?.string, let externalId = value["value"]?.string else {
                    throw SoupError(.storage, "a stored upload record is malformed: \(value.serializedString)")
                }
                creates.append(
                    UploadingCreate(entryId: SoupDatabases.entryId(ofKey: key), field: field, value: externalId))
                return true
            }
        }
        return creates
    }
}
