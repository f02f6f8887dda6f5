public import Foundation
public import MobileSync
import Soups

/// The content of a SmartStore database file, read whole and checked before anything is written.
///
/// Reading opens the file read-only and takes what SmartStore keeps in it: the soups of
/// `soup_attrs` with their index specs from `soup_index_map`, each soup's records from its
/// `TABLE_<id>` table (the `soup`, `created` and `lastModified` columns), and the syncs that
/// `syncs_soup` holds. The index columns and the full-text tables are not read: they are
/// derived from the records, and the store derives them again. A RUNNING sync becomes STOPPED,
/// as a `SyncManager` makes it when it opens.
///
/// ```swift
/// let database = try SmartStoreDatabase(contentsOf: URL(fileURLWithPath: "smartstore.db"))
/// try store.importSmartStore(database)
/// ```
public struct SmartStoreDatabase: Sendable {
    /// The file's name, recorded in the journal by the import.
    public var source: String
    /// The soups, in the order SmartStore registered them; `syncs_soup` is not among them.
    public var soups: [SmartStoreSoup]
    /// The syncs of `syncs_soup`, in id order.
    public var syncs: [SyncState]
    /// The lowest `_soupEntryId` SmartStore had not handed out: above every record's and
    /// every id SQLite's `sqlite_sequence` records for a soup table (deleted records' included).
    public var nextEntryId: Int64
    /// The lowest sync id SmartStore had not handed out, above every id a record's
    /// `__sync_id__` names.
    public var nextSyncId: Int64

    /// How many rows reading goes between two progress reports.
    public static let progressRowInterval: Int64 = 1_000

    /// The name of the soup in which Mobile SDK keeps its syncs.
    public static let syncsSoupName = "syncs_soup"

    /// Reads and checks a SmartStore database file.
    ///
    /// - Parameters:
    ///   - url: the database file; an encrypted one must be decrypted first
    ///     (docs/import-smartstore.md).
    ///   - progress: called as the soup tables' rows are read.
    /// - Throws: ``SmartStoreImportError`` naming the table and row at fault: the file is not a
    ///   database or not a SmartStore one, a record or sync does not parse, a soup uses
    ///   external storage.
    public init(
        contentsOf url: URL, progress: (@Sendable (SmartStoreImportProgress) -> Void)? = nil
    ) throws(SmartStoreImportError) {
        do {
            let file = try SQLiteFile(url)
            var reader = try SmartStoreReader(file: file, progress: progress)
            try reader.read()
            source = file.name
            soups = reader.soups
            syncs = reader.syncs
            nextEntryId = reader.nextEntryId
            nextSyncId = reader.nextSyncId
        } catch let error as SmartStoreImportError {
            throw error
        } catch {
            throw SmartStoreImportError(.storage, "\(url.lastPathComponent): \(error)", cause: error)
        }
    }

    /// Creates a database from values, as a test or another reader makes one.
    /// - Parameters:
    ///   - source: a name for the journal.
    ///   - soups: the soups.
    ///   - syncs: the syncs.
    ///   - nextEntryId: where entry ids continue; at least one above every record's.
    ///   - nextSyncId: where sync ids continue; at least one above every sync's.
    public init(source: String, soups: [SmartStoreSoup], syncs: [SyncState], nextEntryId: Int64, nextSyncId: Int64) {
        self.source = source
        self.soups = soups
        self.syncs = syncs
        self.nextEntryId = nextEntryId
        self.nextSyncId = nextSyncId
    }

    /// How many records the soups hold.
    public var recordCount: Int {
        soups.reduce(0) { $0 + $1.records.count }
    }

    /// How many records are dirty (`__local__` true): what the next sync up sends.
    public var dirtyRecordCount: Int {
        soups.reduce(0) { count, soup in count + soup.records.filter { LocalFlags.isDirty($0.json) }.count }
    }
}
