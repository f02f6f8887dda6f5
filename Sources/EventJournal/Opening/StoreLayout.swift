public import Foundation
import LMDBStore

/// Where a store keeps its parts on disk.
///
/// ```
/// <store>/journal/        the journal: entries and their metadata, synced at every commit
/// <store>/projections/    the projections: committed without a sync, recovered from the journal
/// <store>/checkpoints/    compact copies of the projections, one per checkpoint sequence
/// <store>/anchor/         the projections as of the horizon, folded forward by compaction
/// ```
///
/// A store of format 1 kept everything in one LMDB environment, `<store>/data.mdb`; opening
/// it moves that file into `journal/` and rebuilds the projections (decision 0003).
public struct StoreLayout: Sendable, Hashable {
    /// The store's directory, as `msync --store` names it.
    public let directory: URL

    /// The layout of the store in `directory`.
    ///
    /// A path to the `journal/` folder inside a store is accepted too, so tools can be given
    /// either; it names its parent when that parent holds a store.
    public init(directory: URL) {
        let standardized = directory.standardizedFileURL
        if standardized.lastPathComponent == Self.journalFolderName,
            Self.holdsStore(standardized.deletingLastPathComponent())
        {
            self.directory = standardized.deletingLastPathComponent()
        } else {
            self.directory = standardized
        }
    }

    static let journalFolderName = "journal"

    /// The journal's LMDB environment.
    public var journalDirectory: URL {
        directory.appendingPathComponent(Self.journalFolderName, isDirectory: true)
    }

    /// The projections' LMDB environment.
    public var projectionDirectory: URL {
        directory.appendingPathComponent("projections", isDirectory: true)
    }

    /// The file a read leaves in the projections' folder when a value fails its checksum: the
    /// next open rebuilds them (decision 0012). It goes with the folder they are replaced by.
    package var projectionDamageMarker: URL {
        projectionDirectory.appendingPathComponent("damaged")
    }

    /// Whether a process that read the projections found them damaged and left word for the
    /// next open to replace them: the mark of a failed value check, or LMDB's ``DamageNote``.
    /// That process reported the damage itself (a typed error, or one line and status 3).
    package var projectionDamageNoted: Bool {
        FileManager.default.fileExists(atPath: projectionDamageMarker.path)
            || DamageNote.read(in: projectionDirectory) != nil
    }

    /// Where a checkpoint being restored is assembled before it replaces the projections.
    var restoringProjectionDirectory: URL {
        directory.appendingPathComponent("projections.restoring", isDirectory: true)
    }

    /// The projections' checkpoints, one folder per sequence.
    public var checkpointDirectory: URL {
        directory.appendingPathComponent("checkpoints", isDirectory: true)
    }

    /// The anchor's LMDB environment: the projections' state as of the entry just before the
    /// horizon, which compaction folds forward (decision 0016).
    public var anchorDirectory: URL {
        directory.appendingPathComponent("anchor", isDirectory: true)
    }

    /// The single data file of a store of format 1.
    var formatOneDataFile: URL {
        directory.appendingPathComponent("data.mdb")
    }

    /// Whether a store (of any format) exists here.
    public var holdsStore: Bool {
        Self.holdsStore(directory)
    }

    static func holdsStore(_ directory: URL) -> Bool {
        let files = FileManager.default
        return files.fileExists(atPath: directory.appendingPathComponent("journal/data.mdb").path)
            || files.fileExists(atPath: directory.appendingPathComponent("data.mdb").path)
            || files.fileExists(atPath: directory.appendingPathComponent("projections/data.mdb").path)
    }

    /// Refuses a path that is not a SyncJournal store, without changing anything there.
    ///
    /// A store is a folder whose `journal/data.mdb` is an LMDB journal, or a format-1 store's
    /// `data.mdb` holding one, or (to be refused later, for the lost journal) a folder whose
    /// projections exist without a journal, or (refused later too, as a damaged journal) a
    /// folder whose `journal/data.mdb` is a damaged LMDB file, which is not mapped. A plain file, a missing or empty folder, an empty
    /// `journal/data.mdb`, and a store's `projections/` or `checkpoints/N/` folder are not.
    /// - Throws: ``JournalError/Code/missingStore`` when nothing is there;
    ///   ``JournalError/Code/notAStore`` for anything else that is not a store.
    public func requireStore() throws {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        guard files.fileExists(atPath: directory.path, isDirectory: &isDirectory) else {
            throw JournalError(.missingStore, "no SyncJournal store at \(directory.path): nothing is there")
        }
        guard isDirectory.boolValue else {
            throw JournalError(.notAStore, "\(directory.path) is a file, not a SyncJournal store (a folder)")
        }
        let journalFile = journalDirectory.appendingPathComponent("data.mdb")
        if let bytes = Self.fileBytes(journalFile), bytes > 0 {
            // A damaged journal file is a store, whose opening refuses it with what salvages
            // it (`damagedJournal`); it is not mapped here to look for entries (issue 49), nor
            // when a page LMDB would read is damaged (decision 0027).
            if Self.dataFileDamage(journalFile) != nil || Self.treeDamage(journalFile) != nil { return }
            guard Self.holdsJournal(journalDirectory) else {
                throw JournalError(
                    .notAStore, "\(journalFile.path) is not a SyncJournal journal: \(directory.path) is not a store")
            }
            return
        }
        if Self.fileBytes(formatOneDataFile) ?? 0 > 0 {
            guard Self.holdsJournal(directory) else { throw notAStoreError() }
            return
        }
        // A journal missing or emptied beside projections that exist is a store that lost its
        // journal: opening says so, with what the projections folded.
        if Self.fileBytes(projectionDirectory.appendingPathComponent("data.mdb")) ?? 0 > 0 { return }
        if Self.fileBytes(journalFile) == 0 {
            throw JournalError(
                .notAStore, "\(journalFile.path) is empty (0 bytes): \(directory.path) is not a SyncJournal store")
        }
        throw JournalError(.missingStore, "no SyncJournal store at \(directory.path)")
    }

    /// Whether this is a store of format 1 that opening for writing would convert: one
    /// `data.mdb` holding the journal, and no `journal/` environment yet.
    public var holdsFormatOneStore: Bool {
        Self.fileBytes(journalDirectory.appendingPathComponent("data.mdb")) == nil
            && Self.fileBytes(formatOneDataFile) ?? 0 > 0 && Self.holdsJournal(directory)
    }

    /// Names the store a `projections/` or `checkpoints/N/` folder belongs to, when it does.
    private func notAStoreError() -> JournalError {
        let parent = directory.deletingLastPathComponent()
        if directory.lastPathComponent == "projections", Self.holdsStore(parent) {
            return JournalError(
                .notAStore, "\(directory.path) is the projections folder of the store at \(parent.path): name the store"
            )
        }
        if parent.lastPathComponent == "checkpoints", Self.holdsStore(parent.deletingLastPathComponent()) {
            return JournalError(
                .notAStore,
                "\(directory.path) is a checkpoint of the store at \(parent.deletingLastPathComponent().path): "
                    + "name the store")
        }
        return JournalError(
            .notAStore, "\(directory.path)/data.mdb holds no SyncJournal journal: \(directory.path) is not a store")
    }

    static func fileBytes(_ file: URL) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int
    }

    /// Whether the LMDB environment in `folder` holds a journal's entries, read without
    /// writing anything (a projections environment holds none).
    static func holdsJournal(_ folder: URL) -> Bool {
        // A damaged file is not mapped: reading a page past its end would be SIGBUS (issue 49).
        guard dataFileDamage(folder.appendingPathComponent("data.mdb")) == nil else { return false }
        var options = EnvironmentOptions()
        options.isReadOnly = true
        guard let environment = try? Environment(directory: folder, options: options) else { return false }
        return (try? environment.database(named: Journal.entriesDatabaseName)) != nil
    }

    /// Moves a format-1 store's data file into `journal/`, where the journal environment
    /// opens it. One `rename`, so a crash leaves the file in one place or the other.
    /// - Returns: whether there was a format-1 file to move.
    func moveFormatOneDataIntoJournalDirectory() throws -> Bool {
        let files = FileManager.default
        guard files.fileExists(atPath: formatOneDataFile.path) else { return false }
        // A store's projections folder also holds a lone data.mdb: it is not a format-1 store.
        guard Self.holdsJournal(directory) else { throw notAStoreError() }
        let destination = journalDirectory.appendingPathComponent("data.mdb")
        guard !files.fileExists(atPath: destination.path) else {
            throw JournalError(
                .storage,
                "the store at \(directory.path) holds both a format-1 data.mdb and journal/data.mdb; "
                    + "remove the one that is not current")
        }
        try files.createDirectory(
            at: journalDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        do {
            try files.moveItem(at: formatOneDataFile, to: destination)
        } catch  where !files.fileExists(atPath: formatOneDataFile.path) {
            // Another process moved it first.
            return true
        }
        // The old lock file only ever holds the reader table of processes that are gone.
        try? files.removeItem(at: directory.appendingPathComponent("lock.mdb"))
        try FileDurability.flushDirectory(directory)
        return true
    }
}
