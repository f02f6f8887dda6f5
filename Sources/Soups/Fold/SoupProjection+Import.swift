import EventJournal
import LMDBStore
import LosslessJSON

// The fold of an imported SmartStore database (SmartStoreImport, decision 0204). A `soup.saved`
// record is created at its `_soupLastModifiedDate`; an imported one keeps the creation date
// SmartStore gave it (its `created` column), which the entry carries beside it.
extension SoupProjection {
    /// Folds `soup.imported` and `smartstore.imported`; returns `false` for every other kind.
    func applyImportEntry(_ entry: JournalEntry, in context: ProjectionContext) throws -> Bool {
        guard entry.kind == .soupImported || entry.kind == .smartStoreImported else { return false }
        let state = foldState(context)
        let payload = try entry.jsonPayload()
        if entry.kind == .smartStoreImported {
            // The ids SmartStore handed out, deleted records' included, are never handed out again.
            guard let next = payload[SoupImportField.nextEntryId]?.number?.int64Value, next > 0 else {
                throw SoupError(.storage, "entry \(entry.sequence) of kind \(entry.kind) has no nextEntryId")
            }
            let current = try state.meta(SoupDatabases.nextEntryIdKey, default: 1)
            try state.putMeta(SoupDatabases.nextEntryIdKey, max(current, UInt64(next)))
            return true
        }
        guard let soupName = payload[SoupImportField.soup]?.string,
            let records = payload[SoupImportField.records]?.array,
            let dates = payload[SoupImportField.createdDates]?.array, dates.count == records.count
        else {
            throw SoupError(.storage, "entry \(entry.sequence) of kind \(entry.kind) is malformed")
        }
        try applyImportedRecords(records, createdDates: dates, soup: state.requireSoup(soupName), in: state)
        return true
    }

    /// Stores imported records under their `_soupEntryId`s, each with its creation date.
    private func applyImportedRecords(
        _ records: [JSONValue], createdDates: [JSONValue], soup: SoupCatalogEntry, in state: SoupState
    ) throws {
        var nextEntryId = try state.meta(SoupDatabases.nextEntryIdKey, default: 1)
        for (record, date) in zip(records, createdDates) {
            guard let entryId = record[SoupStore.entryIdField]?.number?.int64Value, entryId > 0,
                let created = date.number?.int64Value
            else {
                throw SoupError(.storage, "an imported record of soup \(soup.name) has no _soupEntryId or date")
            }
            try state.putRecord(record, entryId: entryId, in: soup, placement: .anywhere)
            // The key list holds the creation date: the one just written is the record's last
            // modification, as for a record created here.
            var entries = try state.indexEntries(soup.soupId, entryId)
            entries.createdDate = created
            try state.transaction.put(
                state.databases.recordKeys, key: SoupDatabases.recordKey(soup.soupId, entryId), value: entries.encoded)
            nextEntryId = max(nextEntryId, UInt64(entryId) + 1)
        }
        try state.putMeta(SoupDatabases.nextEntryIdKey, nextEntryId)
    }
}
