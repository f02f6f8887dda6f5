import CLMDB
public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the meta pages of an LMDB data file say, read with plain file reads before the file is
/// mapped, so that a damaged file is found without LMDB touching it.
///
/// LMDB 0.9 keeps two meta pages at the start of `data.mdb` (pages 0 and 1); a commit writes
/// the older one, and a reader uses the one with the higher transaction id. Each holds the
/// file's page size and its last page in use. LMDB checks the magic and version of both
/// itself, but nothing checks that the file still holds the pages the meta page names: a
/// reader that reaches a page past the end of a truncated file gets `SIGBUS`.
/// ``read(from:)`` checks it. The layout read here is LMDB 0.9's (`MDB_page` and `MDB_meta`
/// in `mdb.c`); other LMDB versions are not checked.
public struct DataFileHeader: Sendable, Hashable {
    /// The page size the file was written with, in bytes.
    public var pageSizeBytes: Int
    /// The last page the newer meta page says is allocated (`mm_last_pg`).
    public var lastPage: UInt64
    /// The transaction id of the newer meta page (`mm_txnid`).
    public var transactionID: UInt64
    /// The root page of the free-page database in the newer meta page, or `nil` when empty.
    public var freeRootPage: UInt64?
    /// The size of the file when it was read, in bytes.
    public var fileBytes: Int

    /// The bytes the pages up to ``lastPage`` take, or `nil` when that does not fit an `Int`.
    public var allocatedBytes: Int? {
        let (pages, overflow) = lastPage.addingReportingOverflow(1)
        guard !overflow, let pages = Int(exactly: pages) else { return nil }
        let (bytes, tooLarge) = pages.multipliedReportingOverflow(by: pageSizeBytes)
        return tooLarge ? nil : bytes
    }

    /// Checks the LMDB data file `file` without mapping it and returns what its meta pages say.
    ///
    /// The file passes when both meta pages have LMDB's magic number, version and meta flag,
    /// a plausible page size, and the file holds every page up to the newer meta page's last
    /// page, or the pages missing at its end are all free (LMDB does not write a page it
    /// allocated and freed in the same transaction, so a sound file may end early by a few
    /// free pages; the free-page database says which).
    /// - Returns: `nil` when the file is missing or empty (LMDB makes a new environment there),
    ///   or when the linked LMDB is not version 0.9, whose layout this reads.
    /// - Throws: ``DataFileDamage`` naming what is wrong.
    public static func read(from file: URL) throws(DataFileDamage) -> DataFileHeader? {
        guard Self.checksLinkedLibrary else { return nil }
        return try PageReader.withReader(of: file) { reader throws(DataFileDamage) -> DataFileHeader? in
            guard reader.fileBytes > 0 else { return nil }
            let header = try readMetaPages(reader, file: file)
            guard let allocated = header.allocatedBytes else {
                throw DataFileDamage(
                    file: file, reason: "its meta page names an impossible last page \(header.lastPage)")
            }
            guard reader.fileBytes < allocated else { return header }
            if let missing = try header.firstMissingPageInUse(reader, file: file) {
                throw DataFileDamage(
                    file: file,
                    reason: "it is \(reader.fileBytes) bytes, but its meta page says pages up to \(header.lastPage) "
                        + "(\(allocated) bytes) exist, and page \(missing) past its end is in use (truncated)")
            }
            return header
        } ?? nil
    }

    /// Whether the linked LMDB writes the layout read here: LMDB 0.9 (Debian's liblmdb) on a
    /// 64-bit machine. Elsewhere (Homebrew's LMDB 1.0) ``read(from:)`` checks nothing.
    public static var checksLinkedLibrary: Bool {
        var major: Int32 = 0
        var minor: Int32 = 0
        var patch: Int32 = 0
        _ = mdb_version(&major, &minor, &patch)
        return major == 0 && minor == 9 && MemoryLayout<Int>.size == 8
    }

    // MARK: - Meta pages

    /// `P_META` in `MDB_page.mp_flags`.
    static let metaPageFlag: UInt16 = 0x08
    /// `MDB_MAGIC`.
    static let magic: UInt32 = 0xBEEF_C0DE
    /// `MDB_DATA_VERSION` of LMDB 0.9.
    static let dataVersion: UInt32 = 1
    /// The size of `MDB_page`'s header (`PAGEHDRSZ`); the meta follows it.
    static let pageHeaderBytes = 16
    /// `P_INVALID`: no page (an empty database's root).
    static let invalidPage = UInt64.max

    /// One meta page's fields, at their offsets in LMDB 0.9's `MDB_meta` on a 64-bit machine:
    /// magic 0, version 4, address 8, map size 16, `mm_dbs[2]` 24 (48 bytes each: the page size
    /// is the free database's `md_pad` at 24, its root at 64, the main database's root at 112),
    /// last page 120, txnid 128.
    struct Meta {
        var pageSize: UInt32
        var freeRoot: UInt64
        var mainRoot: UInt64
        var lastPage: UInt64
        var transactionID: UInt64

        static let bytes = DataFileHeader.pageHeaderBytes + 136

        init?(_ page: [UInt8]) {
            let base = DataFileHeader.pageHeaderBytes
            guard page.count >= Self.bytes,
                PageReader.load(UInt16.self, page, 10) & DataFileHeader.metaPageFlag != 0,
                PageReader.load(UInt32.self, page, base) == DataFileHeader.magic,
                PageReader.load(UInt32.self, page, base + 4) == DataFileHeader.dataVersion
            else { return nil }
            pageSize = PageReader.load(UInt32.self, page, base + 24)
            freeRoot = PageReader.load(UInt64.self, page, base + 64)
            mainRoot = PageReader.load(UInt64.self, page, base + 112)
            lastPage = PageReader.load(UInt64.self, page, base + 120)
            transactionID = PageReader.load(UInt64.self, page, base + 128)
        }
    }

    /// Reads and checks both meta pages, as `mdb_env_read_header` does, and keeps the newer.
    static func readMetaPages(_ reader: PageReader, file: URL) throws(DataFileDamage) -> DataFileHeader {
        try readNewerMeta(reader, file: file).header
    }

    /// ``readMetaPages(_:file:)``, and the newer meta page's fields.
    static func readNewerMeta(_ reader: PageReader, file: URL) throws(DataFileDamage) -> (
        header: DataFileHeader, meta: Meta
    ) {
        guard let first = reader.bytes(at: 0, count: Meta.bytes).flatMap(Meta.init) else {
            throw DataFileDamage(file: file, reason: "meta page 0 is not an LMDB 0.9 meta page")
        }
        // LMDB accepts page sizes from 256 bytes (MIN_PAGESIZE) to 64 KiB, powers of two.
        guard first.pageSize >= 256, first.pageSize <= 65_536, first.pageSize & (first.pageSize - 1) == 0 else {
            throw DataFileDamage(file: file, reason: "meta page 0 names an impossible page size \(first.pageSize)")
        }
        guard let second = reader.bytes(at: Int(first.pageSize), count: Meta.bytes).flatMap(Meta.init) else {
            throw DataFileDamage(file: file, reason: "meta page 1 is not an LMDB 0.9 meta page")
        }
        guard second.pageSize == first.pageSize else {
            throw DataFileDamage(
                file: file, reason: "its meta pages name two page sizes, \(first.pageSize) and \(second.pageSize)")
        }
        let newer = second.transactionID > first.transactionID ? second : first
        guard newer.lastPage >= 1 else {
            throw DataFileDamage(file: file, reason: "its meta page names last page \(newer.lastPage), before itself")
        }
        let header = DataFileHeader(
            pageSizeBytes: Int(first.pageSize), lastPage: newer.lastPage, transactionID: newer.transactionID,
            freeRootPage: newer.freeRoot == invalidPage ? nil : newer.freeRoot, fileBytes: reader.fileBytes)
        return (header, newer)
    }
}

extension PageReader {
    /// Runs `body` with a reader of `file`, opened read-only and closed when `body` returns;
    /// `nil` when the file does not exist.
    /// - Throws: ``DataFileDamage`` when the file cannot be read, or what `body` throws.
    static func withReader<T>(
        of file: URL, _ body: (PageReader) throws(DataFileDamage) -> T
    ) throws(DataFileDamage) -> T? {
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw DataFileDamage(file: file, reason: "it cannot be read (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw DataFileDamage(file: file, reason: "it cannot be read (\(String(cString: strerror(errno))))")
        }
        return try body(PageReader(descriptor: descriptor, fileBytes: Int(status.st_size)))
    }
}
