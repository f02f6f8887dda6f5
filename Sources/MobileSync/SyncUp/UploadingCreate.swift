import LosslessJSON
import Soups

/// A local create in flight as an upsert by an external id: the server may hold it already
/// while the journal has no outcome for it yet (decision 0353).
///
/// The upload rule keeps one as the soups' note on the record (`SoupState.putRecordNote`) from
/// the intent to the outcome; the page rule matches a fetched record that is its server copy to
/// the local record instead of storing it twice.
struct UploadingCreate {
    /// The local record's `_soupEntryId`.
    var entryId: Int64
    /// The external id field the create is upserted by.
    var field: String
    /// The external id the create carries, as sync up sends it (a number as its JSON text).
    var value: String

    private static let fieldKey = "field"
    private static let valueKey = "value"

    /// Whether `fetched`, a record a sync down fetched, is the server copy of this create.
    func isServerCopy(_ fetched: JSONValue) -> Bool {
        guard let fetchedValue = SoupPath.project(fetched, field), !fetchedValue.isNull else { return false }
        return (fetchedValue.string ?? fetchedValue.serializedString) == value
    }

    /// Notes that this create of `soup` is being upserted.
    func put(in soup: SoupCatalogEntry, _ state: SoupState) throws {
        let note: JSONValue = [Self.fieldKey: .string(field), Self.valueKey: .string(value)]
        try state.putRecordNote(note, entryId, in: soup.soupId)
    }

    /// Forgets the upload of `entryId`: its outcome is journaled.
    static func remove(_ entryId: Int64, in soup: SoupCatalogEntry, _ state: SoupState) throws {
        try state.removeRecordNote(entryId, in: soup.soupId)
    }

    /// The creates of a soup in flight, by `_soupEntryId`. Usually none: a note lives only
    /// between a sync up's intent and its outcome, or until a crash's upload is reconciled.
    static func all(in soup: SoupCatalogEntry, _ state: SoupState) throws -> [UploadingCreate] {
        try state.recordNotes(in: soup.soupId).map { entryId, note in
            guard let field = note[fieldKey]?.string, let value = note[valueKey]?.string else {
                throw SoupError(.storage, "a stored upload record is malformed: \(note.serializedString)")
            }
            return UploadingCreate(entryId: entryId, field: field, value: value)
        }
    }
}
