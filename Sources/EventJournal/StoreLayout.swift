public import Foundation

/// Where a store keeps its parts on disk.
///
/// ```
/// <store>/journal/        the journal: entries and their metadata, synced at every commit
/// <store>/projections/    the projections: committed without a sync, recovered from the journal
/// <store>/checkpoints/    compact copies of the projections, one per checkpoint sequence
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

    /// Where a checkpoint being restored is assembled before it replaces the projections.
    var restoringProjectionDirectory: URL {
        directory.appendingPathComponent("projections.restoring", isDirectory: true)
    }

    /// The projections' checkpoints, one folder per sequence.
    public var checkpointDirectory: URL {
        directory.appendingPathComponent("checkpoints", isDirectory: true)
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
    }

    /// Moves a format-1 store's data file into `journal/`, where the journal environment
    /// opens it. One `rename`, so a crash leaves the file in one place or the other.
    /// - Returns: whether there was a format-1 file to move.
    func moveFormatOneDataIntoJournalDirectory() throws -> Bool {
        let files = FileManager.default
        guard files.fileExists(atPath: formatOneDataFile.path) else { return false }
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
