package import EventJournal
package import LosslessJSON

// What SmartStoreImport calls to append an imported database's soups and records inside its one
// write (decision 0204). Package access: apps import through SmartStoreImport, never these.
extension SoupStore {
    /// The most records one `soup.imported` entry holds, so that `journal-replay log` shows an
    /// import in pieces a reader can page through and no entry nears the payload limit.
    package static let importBatchRecordCountMax = 2_000

    /// Checks a soup's name and index specs as ``registerSoup(_:indexSpecs:)`` does.
    /// - Throws: ``SoupError`` with the reason.
    package static func validateImported(soup name: String, indexSpecs: [IndexSpec]) throws(SoupError) {
        try validate(soupName: name)
        try validate(indexSpecs, soup: name)
    }

    /// Appends the registration of a soup to `writer`'s write.
    /// - Throws: ``SoupError`` when the soup exists or the specs are refused. SmartStore has no
    ///   hashed index, so none is imported and a plaintext store takes every soup.
    package func appendImportedSoup(_ name: String, indexSpecs: [IndexSpec], to writer: inout JournalWriter) throws {
        try Self.validateImported(soup: name, indexSpecs: indexSpecs)
        let state = SoupState(
            transaction: writer.transaction, databases: SoupDatabases.of(writer.projectionContext),
            catalogCache: catalogCache)
        guard try state.catalogEntry(name) == nil else {
            throw SoupError(.invalidSoupName, "soup '\(name)' exists already")
        }
        try appendRegistration(name, indexSpecs, state: state, to: &writer)
    }

    /// The most record bytes one `soup.imported` entry holds: far below
    /// `JournalEntry.payloadSizeMaxBytes`, so a soup of large records still imports.
    package static let importBatchBytesMax = 64 << 20

    /// Appends records of a registered soup, kept with their `_soupEntryId`s, as `soup.imported`
    /// entries of at most ``importBatchRecordCountMax`` records and about
    /// ``importBatchBytesMax`` bytes (a single larger record makes an entry of its own).
    /// - Parameters:
    ///   - records: whole records, each with its `_soupEntryId` and `_soupLastModifiedDate`.
    ///   - createdDates: each record's creation date, epoch milliseconds.
    package func appendImportedRecords(
        _ records: [JSONValue], createdDates: [Int64], soup: String, to writer: inout JournalWriter
    ) throws {
        precondition(records.count == createdDates.count, "one creation date per record")
        var start = 0
        while start < records.count {
            var end = start
            var bytes = 0
            while end < records.count, end - start < Self.importBatchRecordCountMax {
                bytes += records[end].serialized().count
                if end > start, bytes > Self.importBatchBytesMax { break }
                end += 1
            }
            let payload: JSONValue = [
                SoupImportField.soup: .string(soup), SoupImportField.records: .array(Array(records[start..<end])),
                SoupImportField.createdDates: .array(
                    createdDates[start..<end].map { JSONValue.number(JSONNumber($0)) }),
            ]
            try writer.append(JournalEntry.Draft(kind: .soupImported, header: ["soup": .string(soup)], json: payload))
            start = end
        }
    }

    /// The entry that ends an import: where entry and sync ids continue.
    /// - Parameters:
    ///   - source: the imported file's name, for `journal-replay log`.
    ///   - nextEntryId: the lowest `_soupEntryId` SmartStore never handed out.
    ///   - nextSyncId: the lowest sync id SmartStore never handed out.
    package static func smartStoreImportedDraft(source: String, nextEntryId: Int64, nextSyncId: Int64)
        -> JournalEntry.Draft
    {
        let payload: JSONValue = [
            SoupImportField.source: .string(source), SoupImportField.nextEntryId: .number(JSONNumber(nextEntryId)),
            SoupImportField.nextSyncId: .number(JSONNumber(nextSyncId)),
        ]
        return JournalEntry.Draft(kind: .smartStoreImported, header: [:], json: payload)
    }
}
