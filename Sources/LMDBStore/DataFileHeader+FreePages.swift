package import Foundation

extension DataFileHeader {
    /// `P_BRANCH`, `P_LEAF` and `P_OVERFLOW` in `MDB_page.mp_flags`; `F_BIGDATA` in a node's flags.
    private static let branchPageFlag: UInt16 = 0x01
    private static let leafPageFlag: UInt16 = 0x02
    private static let overflowPageFlag: UInt16 = 0x04
    private static let bigDataNodeFlag: UInt16 = 0x01
    /// The size of `MDB_node`'s header before its key (`NODESIZE`).
    private static let nodeHeaderBytes = 8

    /// The first page past the end of the file that is in use, or `nil` when every missing
    /// page is in the free-page database (a sound file that ends early).
    ///
    /// Reads the free-page database (`FREE_DBI`) with `pread`: branch pages give child page
    /// numbers, leaf nodes hold lists of free page numbers (`MDB_IDL`: a count, then the pages),
    /// inline or on overflow pages. A page of that database past the end is itself in use.
    /// - Throws: ``DataFileDamage`` when a page of that database is not what LMDB writes.
    func firstMissingPageInUse(_ reader: PageReader, file: URL) throws(DataFileDamage) -> UInt64? {
        let filePages = UInt64(fileBytes / pageSizeBytes)
        let walk = try freePages(reader, file: file, atOrAfter: filePages)
        if let unreadable = walk.unreadable { return unreadable }
        var candidate = filePages
        while candidate <= lastPage {
            guard walk.free.contains(candidate) else { return candidate }
            candidate += 1
        }
        return nil
    }

    /// The pages up to ``lastPage`` that the snapshot of `file`'s newer meta page does not
    /// use: those its free-page database lists.
    /// - Throws: ``DataFileDamage`` when the file cannot be read, or its free-page database is
    ///   not what LMDB writes or is not all in the file.
    package static func freePages(of file: URL) throws(DataFileDamage) -> Set<UInt64> {
        try freePages(in: file) { reader throws(DataFileDamage) in try readMetaPages(reader, file: file) }
    }

    /// The pages up to its last page that the recorded snapshot `meta` does not use, read
    /// from `file` whatever its meta pages say now: the pages a power loss may have left in
    /// any state, besides those past the snapshot's last page and the two meta pages.
    /// - Throws: ``DataFileDamage`` when the file cannot be read, or the snapshot's free-page
    ///   database is not what LMDB writes or is not all in the file.
    package static func freePages(of meta: SnapshotMeta, in file: URL) throws(DataFileDamage) -> Set<UInt64> {
        try freePages(in: file) { reader throws(DataFileDamage) in
            guard let parsed = Meta(meta.bytes) else {
                throw DataFileDamage(file: file, reason: "the recorded meta page is not an LMDB 0.9 meta page")
            }
            return DataFileHeader(
                pageSizeBytes: meta.pageSizeBytes, lastPage: meta.lastPage, transactionID: meta.transactionID,
                freeRootPage: parsed.freeRoot == invalidPage ? nil : parsed.freeRoot, fileBytes: reader.fileBytes)
        }
    }

    /// Every page the free-page database of the snapshot `header` describes lists.
    private static func freePages(
        in file: URL, header: (PageReader) throws(DataFileDamage) -> DataFileHeader
    ) throws(DataFileDamage) -> Set<UInt64> {
        let free = try PageReader.withReader(of: file) { reader throws(DataFileDamage) -> Set<UInt64> in
            let walk = try header(reader).freePages(reader, file: file, atOrAfter: 0)
            if let unreadable = walk.unreadable {
                throw DataFileDamage(file: file, reason: "page \(unreadable) of its free-page database is past its end")
            }
            return walk.free
        }
        guard let free else { throw DataFileDamage(file: file, reason: "it does not exist") }
        return free
    }

    /// The free pages at or after `first` that the free-page database (`FREE_DBI`) lists, read
    /// with `pread`: branch pages give child page numbers, leaf nodes hold lists of free page
    /// numbers (`MDB_IDL`: a count, then the pages), inline or on overflow pages. The walk
    /// stops at the first page of that database the file does not hold (`unreadable`).
    /// - Throws: ``DataFileDamage`` when a page of that database is not what LMDB writes.
    private func freePages(
        _ reader: PageReader, file: URL, atOrAfter first: UInt64
    ) throws(DataFileDamage) -> (free: Set<UInt64>, unreadable: UInt64?) {
        guard let root = freeRootPage else { return ([], nil) }
        var free = Set<UInt64>()
        var pending = [root]
        var visited = 0
        while let page = pending.popLast() {
            visited += 1
            guard UInt64(visited) <= lastPage + 1 else {
                throw DataFileDamage(file: file, reason: "its free-page database loops")
            }
            guard let bytes = pageBytes(page, reader) else { return (free, page) }
            let flags = PageReader.load(UInt16.self, bytes, 10)
            guard PageReader.load(UInt64.self, bytes, 0) == page, flags & (Self.branchPageFlag | Self.leafPageFlag) != 0
            else {
                throw DataFileDamage(file: file, reason: "page \(page) of its free-page database is not a tree page")
            }
            for node in try nodeOffsets(bytes, page: page, file: file) {
                let low = UInt64(PageReader.load(UInt16.self, bytes, node))
                let high = UInt64(PageReader.load(UInt16.self, bytes, node + 2))
                let nodeFlags = PageReader.load(UInt16.self, bytes, node + 4)
                if flags & Self.branchPageFlag != 0 {
                    pending.append(low | high << 16 | UInt64(nodeFlags) << 32)
                    continue
                }
                let keyBytes = Int(PageReader.load(UInt16.self, bytes, node + 6))
                let dataOffset = node + Self.nodeHeaderBytes + keyBytes
                let dataBytes = Int(low | high << 16)
                let list: [UInt8]
                if nodeFlags & Self.bigDataNodeFlag != 0 {
                    guard dataOffset + 8 <= bytes.count else {
                        throw DataFileDamage(file: file, reason: "page \(page) of its free-page database is malformed")
                    }
                    let overflow = PageReader.load(UInt64.self, bytes, dataOffset)
                    guard let stored = overflowBytes(overflow, count: dataBytes, reader) else {
                        return (free, overflow)
                    }
                    list = stored
                } else {
                    guard dataOffset + dataBytes <= bytes.count else {
                        throw DataFileDamage(file: file, reason: "page \(page) of its free-page database is malformed")
                    }
                    list = Array(bytes[dataOffset..<dataOffset + dataBytes])
                }
                collectFreePages(list, atOrAfter: first, into: &free)
            }
        }
        return (free, nil)
    }

    /// The whole page `page`, or `nil` when the file does not hold it.
    private func pageBytes(_ page: UInt64, _ reader: PageReader) -> [UInt8]? {
        guard let index = Int(exactly: page), index <= reader.fileBytes / pageSizeBytes else { return nil }
        return reader.bytes(at: index * pageSizeBytes, count: pageSizeBytes)
    }

    /// The `count` bytes stored on the overflow pages starting at `page`, or `nil` when the file
    /// does not hold them all or `page` is not an overflow page.
    private func overflowBytes(_ page: UInt64, count: Int, _ reader: PageReader) -> [UInt8]? {
        guard let index = Int(exactly: page), index <= reader.fileBytes / pageSizeBytes,
            let header = reader.bytes(at: index * pageSizeBytes, count: Self.pageHeaderBytes),
            PageReader.load(UInt16.self, header, 10) & Self.overflowPageFlag != 0
        else { return nil }
        return reader.bytes(at: index * pageSizeBytes + Self.pageHeaderBytes, count: count)
    }

    /// The offsets of a tree page's nodes (`mp_ptrs`), each checked to lie inside the page.
    private func nodeOffsets(_ bytes: [UInt8], page: UInt64, file: URL) throws(DataFileDamage) -> [Int] {
        let lower = Int(PageReader.load(UInt16.self, bytes, 12))
        guard lower >= Self.pageHeaderBytes, lower <= bytes.count else {
            throw DataFileDamage(file: file, reason: "page \(page) of its free-page database is malformed")
        }
        var offsets: [Int] = []
        for slot in stride(from: Self.pageHeaderBytes, to: lower - 1, by: 2) {
            let offset = Int(PageReader.load(UInt16.self, bytes, slot))
            // A branch page's first node has no key: its header alone may end the page.
            guard offset >= lower, offset + Self.nodeHeaderBytes <= bytes.count else {
                throw DataFileDamage(file: file, reason: "page \(page) of its free-page database is malformed")
            }
            offsets.append(offset)
        }
        return offsets
    }

    /// Adds the pages of one `MDB_IDL` (a count, then page numbers) at or after `first` to `free`.
    private func collectFreePages(_ list: [UInt8], atOrAfter first: UInt64, into free: inout Set<UInt64>) {
        let count = PageReader.load(UInt64.self, list, 0)
        let stored = UInt64(max(list.count / 8 - 1, 0))
        for index in 0..<Int(min(count, stored)) {
            let page = PageReader.load(UInt64.self, list, 8 + index * 8)
            if page >= first, page <= lastPage { free.insert(page) }
        }
    }
}
