public import EventJournal

// The entries an import of a SmartStore database appends (SmartStoreImport writes them, the soup
// and sync-state folds read them), declared once. docs/import-smartstore.md documents them.

extension JournalEntry.Kind {
    /// Records imported into a soup with the ids and dates SmartStore gave them:
    /// `{soup, records, createdDates}`, one creation date (epoch ms) per record, in order.
    public static let soupImported: Self = "soup.imported"
    /// The end of an import of a SmartStore database: `{source, nextEntryId, nextSyncId}`, the
    /// ids SmartStore had handed out, so the store never hands one out again.
    public static let smartStoreImported: Self = "smartstore.imported"
}

/// The payload members of the import entries, shared by the writer and the folds.
package enum SoupImportField {
    package static let soup = "soup"
    package static let records = "records"
    package static let createdDates = "createdDates"
    package static let source = "source"
    package static let nextEntryId = "nextEntryId"
    package static let nextSyncId = "nextSyncId"
}
