import EventJournal
import Foundation
public import MobileSync
import Soups

extension SyncStore {
    /// Writes a SmartStore database into this store, which must have no entries yet.
    ///
    /// Everything is appended in one write, so the store holds all of it or, when this throws,
    /// nothing: a `soup.registered` entry per soup with SmartStore's index specs,
    /// `soup.imported` entries with the records under their `_soupEntryId`s (their dates and
    /// local flags as they were, so the dirty ones are what the next sync up sends), a
    /// `sync.created` entry per sync with its id, state and watermark, and a last
    /// `smartstore.imported` entry after which entry and sync ids continue where SmartStore's
    /// stopped. Decision 0204 explains the choices.
    ///
    /// ```swift
    /// let database = try SmartStoreDatabase(contentsOf: fileURL)
    /// let store = try SyncStore(directory: storeURL, clock: SystemWallClock(), logger: logger)
    /// try store.importSmartStore(database)
    /// ```
    ///
    /// - Parameters:
    ///   - database: the database read by ``SmartStoreDatabase/init(contentsOf:progress:)``.
    ///   - progress: called as each soup's records are appended (before the one commit).
    /// - Throws: ``SmartStoreImportError/Code/storeNotEmpty`` when the store has entries;
    ///   ``SmartStoreImportError/Code/malformedSoup`` or ``SmartStoreImportError/Code/malformedSync``
    ///   when the store refuses a soup or sync; ``SmartStoreImportError/Code/storage`` when
    ///   the journal cannot be written.
    /// - Complexity: O(records × indexes × log n), in one write transaction.
    public func importSmartStore(
        _ database: SmartStoreDatabase, progress: (@Sendable (SmartStoreImportProgress) -> Void)? = nil
    ) throws(SmartStoreImportError) {
        let total = Int64(database.recordCount)
        do {
            try journal.write { writer in
                guard writer.nextSequence == 1 else {
                    throw SmartStoreImportError(
                        .storeNotEmpty,
                        "the store in \(directory.path) has entries already: import into a new store directory")
                }
                var done: Int64 = 0
                for soup in database.soups {
                    try appendSoup(soup, to: &writer)
                    done += Int64(soup.records.count)
                    progress?(SmartStoreImportProgress(phase: .writing, done: done, total: total))
                }
                for sync in database.syncs {
                    try appendSync(sync, to: &writer)
                }
                try writer.append(
                    SoupStore.smartStoreImportedDraft(
                        source: database.source, nextEntryId: database.nextEntryId, nextSyncId: database.nextSyncId))
            }
        } catch let error as SmartStoreImportError {
            throw error
        } catch {
            throw SmartStoreImportError(.storage, "the import could not be written: \(error)", cause: error)
        }
        // After the commit: a soup past the threshold gets its dictionary and its records are
        // compressed now (decisions 0030 and 0033). The import stands whatever becomes of that:
        // a failed batch is journaled again after a later write.
        try? soups.compressRecords { compressed, total in
            progress?(SmartStoreImportProgress(phase: .compressing, done: Int64(compressed), total: Int64(total)))
        }
    }

    private func appendSoup(_ soup: SmartStoreSoup, to writer: inout JournalWriter) throws {
        do {
            try soups.appendImportedSoup(soup.name, indexSpecs: soup.indexSpecs, to: &writer)
        } catch let error as SoupError where error.code != .storage {
            throw SmartStoreImportError(.malformedSoup, "soup '\(soup.name)': \(error.message)", cause: error)
        }
        try soups.appendImportedRecords(
            soup.records.map(\.json), createdDates: soup.records.map(\.createdDate), soup: soup.name, to: &writer)
    }

    private func appendSync(_ sync: SyncState, to writer: inout JournalWriter) throws {
        do {
            try writer.append(sync.createdEntryDraft)
        } catch let error as SyncError {
            throw SmartStoreImportError(
                .malformedSync, "sync \(sync.id): \(error.message)", table: SmartStoreDatabase.syncsSoupName,
                row: sync.id, cause: error)
        }
    }
}
