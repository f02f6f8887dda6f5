import CLMDB
package import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The meta page of one committed snapshot of an LMDB data file, kept so that the file can be
/// set back to exactly that snapshot (decision 0014).
///
/// LMDB 0.9 keeps two meta pages and overwrites the older one at each commit, so a snapshot's
/// own meta page is gone two commits later. Its other pages stay where they are as long as
/// LMDB does not reuse them, which a ``PinnedSnapshot`` guarantees. Writing these bytes back
/// into both meta slots of a file nobody has open makes LMDB open that snapshot: its trees,
/// its free pages and its last page, whatever was written after it.
package struct SnapshotMeta: Sendable, Hashable {
    /// The meta page's page header and `MDB_meta`, as LMDB wrote them.
    package let bytes: [UInt8]
    /// The snapshot's transaction id (`mm_txnid`).
    package let transactionID: UInt64
    /// The last page the snapshot uses (`mm_last_pg`).
    package let lastPage: UInt64
    /// The file's page size, in bytes.
    package let pageSizeBytes: Int

    /// The meta read back from `bytes`, or `nil` when they are not an LMDB 0.9 meta page.
    package init?(bytes: [UInt8]) {
        guard bytes.count == DataFileHeader.Meta.bytes, let meta = DataFileHeader.Meta(bytes) else { return nil }
        let pageSize = Int(meta.pageSize)
        guard pageSize >= 256, pageSize <= 65_536, pageSize & (pageSize - 1) == 0, meta.lastPage >= 1 else {
            return nil
        }
        self.bytes = bytes
        transactionID = meta.transactionID
        lastPage = meta.lastPage
        pageSizeBytes = pageSize
    }

    /// Reads the meta page of the snapshot `transactionID` from `file`: the slot LMDB wrote it
    /// to (the transaction id's parity).
    /// - Throws: ``DataFileDamage`` when that slot holds another snapshot or no meta page.
    static func read(from file: URL, transactionID: UInt64) throws(DataFileDamage) -> SnapshotMeta {
        let meta = try PageReader.withReader(of: file) { reader throws(DataFileDamage) -> SnapshotMeta? in
            let header = try DataFileHeader.readMetaPages(reader, file: file)
            let slot = Int(transactionID & 1)
            guard let bytes = reader.bytes(at: slot * header.pageSizeBytes, count: DataFileHeader.Meta.bytes),
                let meta = SnapshotMeta(bytes: bytes), meta.transactionID == transactionID
            else { return nil }
            return meta
        }
        guard let meta = meta ?? nil else {
            throw DataFileDamage(file: file, reason: "its meta pages do not hold snapshot \(transactionID)")
        }
        return meta
    }

    /// Writes this meta page into both meta slots of `file` and syncs it, so that LMDB opens
    /// this snapshot next.
    ///
    /// Only for a file no process has open (after a power loss, before the first open): an
    /// environment that has it mapped would not notice.
    /// - Throws: ``DataFileDamage`` when the file cannot be written, or is too short to hold
    ///   the snapshot's pages.
    package func restore(into file: URL) throws(DataFileDamage) {
        let descriptor = open(file.path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw DataFileDamage(
                file: file, reason: "it cannot be opened to write (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        // The file's size, as the offset of its end.
        let fileBytes = lseek(descriptor, 0, SEEK_END)
        guard fileBytes >= 0, Int(fileBytes) >= (Int(lastPage) + 1) * pageSizeBytes else {
            throw DataFileDamage(
                file: file, reason: "it is shorter than snapshot \(transactionID)'s last page \(lastPage)")
        }
        for slot in 0..<2 {
            var page = bytes
            // The page header's own number (`mp_pgno`) names the slot it is in.
            withUnsafeBytes(of: UInt64(slot).littleEndian) { page.replaceSubrange(0..<8, with: $0) }
            let written = page.withUnsafeBytes {
                pwrite(descriptor, $0.baseAddress, $0.count, off_t(slot * pageSizeBytes))
            }
            guard written == page.count else {
                throw DataFileDamage(
                    file: file, reason: "meta page \(slot) cannot be written (\(String(cString: strerror(errno))))")
            }
        }
        guard fsync(descriptor) == 0 else {
            throw DataFileDamage(file: file, reason: "it cannot be synced (\(String(cString: strerror(errno))))")
        }
    }
}
