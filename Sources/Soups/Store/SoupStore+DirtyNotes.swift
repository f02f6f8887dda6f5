package import EventJournal
package import LosslessJSON

extension SoupStore {
    /// The dirty records of `soup` that have a note (a base or an open conflict), with the
    /// record, by `_soupEntryId`: what MobileSync lists conflicts from.
    /// - Throws: ``SoupError/Code/unknownSoup``.
    package func dirtyNotes(_ soup: String) throws -> [(entryId: Int64, record: JSONValue, note: DirtyNote)] {
        do {
            return try journal.read { try Self.dirtyNotes(soup, in: $0) }
        } catch {
            throw Self.wrap(error)
        }
    }

    /// ``dirtyNotes(_:)`` read through `reader`, for an observation of them.
    package static func dirtyNotes(_ soup: String, in reader: JournalReader) throws -> [(
        entryId: Int64, record: JSONValue, note: DirtyNote
    )] {
        let state = SoupState(transaction: reader.transaction, databases: SoupDatabases.of(reader.projectionContext))
        let catalog = try state.requireSoup(soup)
        return try state.dirtyNotes(in: catalog.soupId).compactMap { entryId, note in
            try state.record(catalog.soupId, entryId).map { (entryId, $0, note) }
        }
    }

    /// The record `entryId` of `soup` and its dirty note (`nil` when the record is clean), or
    /// `nil` when there is no such record.
    /// - Throws: ``SoupError/Code/unknownSoup``.
    package func recordAndDirtyNote(_ soup: String, entryId: Int64) throws -> (record: JSONValue, note: DirtyNote?)? {
        try read { state in
            let catalog = try state.requireSoup(soup)
            guard let record = try state.record(catalog.soupId, entryId) else { return nil }
            return (record, try state.dirtyNote(catalog.soupId, entryId))
        }
    }
}
