package import Foundation
package import LMDBStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The durable record of the projections' newest pinned, synced snapshot (decision 0014): its
/// meta page and the fold mark it holds, in `projections/synced-snapshot`.
///
/// After a power loss, writing the meta page back into `projections/data.mdb` reopens exactly
/// that snapshot, because every writer pins (``PinnedSnapshot``) before it commits and LMDB
/// reuses no page a live pin can reach. The record lives in the folder of the file it
/// describes, so whatever replaces or removes that folder takes the record with it.
///
/// ```
/// version (1 byte, 1) | meta page (152 bytes) | fold mark (12 bytes) | CRC-32C of the rest (4 bytes, BE)
/// ```
package struct SyncedSnapshotRecord: Hashable, Sendable {
    /// The snapshot's meta page, as LMDB wrote it.
    package var meta: SnapshotMeta
    /// The entry the snapshot's projections have folded through.
    var foldMark: FoldMark

    static let fileName = "synced-snapshot"
    private static let version: UInt8 = 1

    init(meta: SnapshotMeta, foldMark: FoldMark) {
        self.meta = meta
        self.foldMark = foldMark
    }

    /// The entry the snapshot's projections have folded through.
    package var foldedSequence: UInt64 {
        foldMark.sequence
    }

    var bytes: [UInt8] {
        var bytes = [Self.version] + meta.bytes + foldMark.bytes
        bytes.appendBigEndian(CRC32C.checksum(bytes))
        return bytes
    }

    /// The record `bytes` encode, or `nil` when they are not a whole record of this version.
    init?(bytes: [UInt8]) {
        let metaBytes = bytes.count - 1 - 12 - 4
        guard metaBytes > 0, bytes.first == Self.version else { return nil }
        let body = Array(bytes.dropLast(4))
        let stored = bytes.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard CRC32C.checksum(body) == stored,
            let meta = SnapshotMeta(bytes: Array(body[1..<(1 + metaBytes)])),
            let mark = FoldMark(bytes: body.suffix(12))
        else { return nil }
        self.init(meta: meta, foldMark: mark)
    }

    /// The record in the projections' folder `directory`, or `nil` when there is none or it
    /// is not whole (a record that fails its check is treated as absent: the store then
    /// recovers from a checkpoint, as before records existed).
    package static func read(in directory: URL) -> SyncedSnapshotRecord? {
        guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(fileName).path) else {
            return nil
        }
        return SyncedSnapshotRecord(bytes: Array(data))
    }

    /// Writes the record into `directory` durably: a temporary file synced, renamed over the
    /// old record, and the folder synced (which also makes the data file's own name durable).
    /// Called under the projections' writer lock, so records never race.
    func write(in directory: URL) throws {
        let temporary = directory.appendingPathComponent(Self.fileName + ".new")
        let record = directory.appendingPathComponent(Self.fileName)
        do {
            try Data(bytes).write(to: temporary)
            try FileDurability.flushFile(temporary)
        } catch let error as JournalError {
            throw error
        } catch {
            throw JournalError(.storage, "cannot write \(temporary.path): \(error)", cause: error)
        }
        guard rename(temporary.path, record.path) == 0 else {
            throw JournalError(.storage, "cannot rename \(temporary.path): \(String(cString: strerror(errno)))")
        }
        try FileDurability.flushDirectory(directory)
    }

    /// Removes the record from `directory`, durably, before something writes the projections
    /// there without a pin (a migration, a key rotation): their snapshot is no longer kept.
    package static func remove(in directory: URL) throws {
        let record = directory.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: record.path) else { return }
        do {
            try FileManager.default.removeItem(at: record)
        } catch {
            throw JournalError(.storage, "cannot remove \(record.path): \(error)", cause: error)
        }
        try FileDurability.flushDirectory(directory)
    }
}
