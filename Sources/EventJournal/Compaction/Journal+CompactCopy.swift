public import Foundation
import LMDBStore

// A compact copy of a whole store. LMDB never gives pages back to the file system: a store
// whose projections once held more than they do now keeps its size. A copy written page by
// page from live data only is as small as the store can be, and opens as the same store.
extension Journal {
    /// The sizes of a store and of its compact copy.
    public struct CompactCopyReport: Sendable, Hashable {
        /// The last entry of the copied journal.
        public var lastSequence: UInt64
        /// Bytes of the source's journal and projection files.
        public var sourceBytes: Int
        /// Bytes of the copy's journal and projection files.
        public var copyBytes: Int
        /// How many checkpoints were copied with them.
        public var checkpointCount: Int
    }

    /// Writes a compact copy of the store into `destination`, a directory that must not exist.
    ///
    /// The projections are copied before the journal, each from a read snapshot, so writers
    /// are not held up and the copy's projections are never ahead of its journal: entries
    /// appended in between are folded when the copy is opened, as after any crash. The copy's
    /// files are synced before it is renamed into place, so its projections are trusted as they
    /// are, even on another machine. Checkpoints and the anchor are copied too; leases are not
    /// (they belong to running processes).
    ///
    /// - Throws: ``JournalError/Code/storage`` when `destination` exists or cannot be written;
    ///   nothing is left at `destination` then.
    /// - Complexity: O(live data): every live page is read and written once.
    public func writeCompactCopy(to destination: URL) throws -> CompactCopyReport {
        try requireOpen()
        let target = StoreLayout(directory: destination)
        let files = FileManager.default
        guard !files.fileExists(atPath: target.directory.path) else {
            throw JournalError(.storage, "cannot write a compact copy to \(target.directory.path): it exists")
        }
        let partial = target.directory.deletingLastPathComponent().appendingPathComponent(
            ".\(target.directory.lastPathComponent).partial-\(ProcessInfo.processInfo.processIdentifier)",
            isDirectory: true)
        try? files.removeItem(at: partial)
        defer { try? files.removeItem(at: partial) }
        return try Self.guarded("cannot write a compact copy to \(target.directory.path)") {
            let copy = StoreLayout(directory: partial)
            try projectionEnvironment.copy(to: copy.projectionDirectory, compact: true)
            try journalEnvironment.copy(to: copy.journalDirectory, compact: true)
            // After the journal: an anchor copied before it could be behind the copy's horizon.
            let copiesAnchor = anchor.exists
            if copiesAnchor { try anchor.withEnvironment { try $0.copy(to: copy.anchorDirectory, compact: true) } }
            let checkpointCount = try Self.copyCheckpoints(
                from: layout.checkpointDirectory, to: copy.checkpointDirectory)
            let lastSequence = try Self.trustProjections(of: copy)
            for folder in [copy.journalDirectory, copy.projectionDirectory]
                + (copiesAnchor ? [copy.anchorDirectory] : [])
            {
                try? files.removeItem(at: folder.appendingPathComponent("lock.mdb"))
                try FileDurability.flushFile(folder.appendingPathComponent("data.mdb"))
                try FileDurability.flushDirectory(folder)
            }
            try FileDurability.flushDirectory(partial)
            try files.moveItem(at: partial, to: target.directory)
            try FileDurability.flushDirectory(target.directory.deletingLastPathComponent())
            return CompactCopyReport(
                lastSequence: lastSequence, sourceBytes: try Self.dataBytes(of: layout),
                copyBytes: try Self.dataBytes(of: target), checkpointCount: checkpointCount)
        }
    }

    /// Removes the copy's note that its projections hold unsynced writes (they are synced
    /// before the copy is renamed into place), and returns its journal's last sequence.
    private static func trustProjections(of copy: StoreLayout) throws -> UInt64 {
        let environment = try Environment(directory: copy.journalDirectory)
        let meta = try environment.database(named: metaDatabaseName)
        let entries = try environment.database(named: entriesDatabaseName)
        return try environment.write { transaction in
            _ = try transaction.delete(meta, key: unsyncedBootKey)
            // Keys only: the copy is opened without the store's seal, so its values are not read.
            let last = try transaction.withCursor(entries) { try $0.lastKey() }
            return last.flatMap(SequenceKey.decode) ?? 0
        }
    }

    /// Copies every complete checkpoint folder (never one being written).
    private static func copyCheckpoints(from source: URL, to destination: URL) throws -> Int {
        let files = FileManager.default
        let names = (try? files.contentsOfDirectory(atPath: source.path)) ?? []
        let complete = names.filter { UInt64($0) != nil }.sorted()
        guard !complete.isEmpty else { return 0 }
        try files.createDirectory(at: destination, withIntermediateDirectories: true)
        for name in complete {
            let folder = destination.appendingPathComponent(name, isDirectory: true)
            try files.copyItem(at: source.appendingPathComponent(name, isDirectory: true), to: folder)
            for file in try files.contentsOfDirectory(atPath: folder.path) {
                try FileDurability.flushFile(folder.appendingPathComponent(file))
            }
            try FileDurability.flushDirectory(folder)
        }
        try FileDurability.flushDirectory(destination)
        return complete.count
    }

    private static func dataBytes(of layout: StoreLayout) throws -> Int {
        try [layout.journalDirectory, layout.projectionDirectory].reduce(0) { total, folder in
            let attributes = try FileManager.default.attributesOfItem(
                atPath: folder.appendingPathComponent("data.mdb").path)
            return total + ((attributes[.size] as? NSNumber)?.intValue ?? 0)
        }
    }
}
