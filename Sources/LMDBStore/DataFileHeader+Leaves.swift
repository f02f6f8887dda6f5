package import Foundation

extension DataFileHeader {
    /// One key and value found on a leaf page.
    package struct LeafNode: Sendable, Hashable {
        /// The page it was found on.
        package var page: UInt64
        package var key: [UInt8]
        package var value: [UInt8]
    }

    /// `P_LEAF`, `P_OVERFLOW`, `P_LEAF2` and `P_SUBP` in `MDB_page.mp_flags`; `F_BIGDATA`,
    /// `F_SUBDATA` and `F_DUPDATA` in a node's flags.
    private static let leafFlag: UInt16 = 0x02
    private static let overflowFlag: UInt16 = 0x04
    private static let fixedLeafFlag: UInt16 = 0x20
    private static let subPageFlag: UInt16 = 0x40
    private static let bigDataFlag: UInt16 = 0x01
    private static let subDatabaseFlag: UInt16 = 0x02
    private static let duplicatesFlag: UInt16 = 0x04

    /// Every plain key and value on the leaf pages `file` holds whole, whichever tree (or no
    /// tree: free pages keep older copies) they belong to, read with `pread` and never mapped.
    ///
    /// What is left to salvage from a file whose trees cannot be walked, a truncated one say:
    /// its branch pages or roots may be gone while leaves before the damage are intact. A page
    /// counts when its header names its own page number and its node offsets lie inside it;
    /// a value on overflow pages counts when the file holds them all. Nothing here says which
    /// database a node belonged to, or whether its transaction committed: the caller checks
    /// what it reads (checksums, authentication) and decides.
    /// - Parameter keyBytes: only nodes whose key has this many bytes.
    /// - Throws: ``DataFileDamage`` when the file cannot be read or its meta pages are not
    ///   LMDB's.
    package static func leafNodes(of file: URL, keyBytes: Int) throws(DataFileDamage) -> [LeafNode] {
        let nodes = try PageReader.withReader(of: file) { reader throws(DataFileDamage) -> [LeafNode] in
            let header = try readMetaPages(reader, file: file)
            var found: [LeafNode] = []
            let pageCount = reader.fileBytes / header.pageSizeBytes
            // Pages 0 and 1 are the meta pages.
            for page in 2..<max(pageCount, 2) {
                guard let bytes = reader.bytes(at: page * header.pageSizeBytes, count: header.pageSizeBytes) else {
                    break
                }
                found += header.leafNodes(bytes, page: UInt64(page), keyBytes: keyBytes, reader)
            }
            return found
        }
        guard let nodes else { throw DataFileDamage(file: file, reason: "it does not exist") }
        return nodes
    }

    /// The plain nodes of one page, none when it is not a well-formed leaf page.
    private func leafNodes(_ bytes: [UInt8], page: UInt64, keyBytes: Int, _ reader: PageReader) -> [LeafNode] {
        let flags = PageReader.load(UInt16.self, bytes, 10)
        guard PageReader.load(UInt64.self, bytes, 0) == page, flags & Self.leafFlag != 0,
            flags & (Self.fixedLeafFlag | Self.subPageFlag | Self.overflowFlag) == 0
        else { return [] }
        let lower = Int(PageReader.load(UInt16.self, bytes, 12))
        guard lower >= Self.pageHeaderBytes, lower <= bytes.count else { return [] }
        var nodes: [LeafNode] = []
        for slot in stride(from: Self.pageHeaderBytes, to: lower - 1, by: 2) {
            let offset = Int(PageReader.load(UInt16.self, bytes, slot))
            // `NODESIZE`: data size (two halves), flags and key size before the key.
            guard offset >= lower, offset + 8 <= bytes.count else { return [] }
            let dataBytes =
                Int(PageReader.load(UInt16.self, bytes, offset))
                | Int(PageReader.load(UInt16.self, bytes, offset + 2)) << 16
            let nodeFlags = PageReader.load(UInt16.self, bytes, offset + 4)
            let nodeKeyBytes = Int(PageReader.load(UInt16.self, bytes, offset + 6))
            let keyStart = offset + 8
            guard keyStart + nodeKeyBytes <= bytes.count else { return [] }
            guard nodeKeyBytes == keyBytes, nodeFlags & (Self.subDatabaseFlag | Self.duplicatesFlag) == 0 else {
                continue
            }
            let key = Array(bytes[keyStart..<(keyStart + nodeKeyBytes)])
            let dataStart = keyStart + nodeKeyBytes
            let value: [UInt8]?
            if nodeFlags & Self.bigDataFlag != 0 {
                value = overflowValue(at: PageReader.load(UInt64.self, bytes, dataStart), count: dataBytes, reader)
            } else if dataStart + dataBytes <= bytes.count {
                value = Array(bytes[dataStart..<(dataStart + dataBytes)])
            } else {
                value = nil
            }
            if let value { nodes.append(LeafNode(page: page, key: key, value: value)) }
        }
        return nodes
    }

    /// The `count` bytes of a value on the overflow pages from `page`, or `nil` when the file
    /// does not hold them all or `page` is not an overflow page naming itself.
    private func overflowValue(at page: UInt64, count: Int, _ reader: PageReader) -> [UInt8]? {
        guard let index = Int(exactly: page), index >= 2, index < reader.fileBytes / pageSizeBytes,
            let header = reader.bytes(at: index * pageSizeBytes, count: Self.pageHeaderBytes),
            PageReader.load(UInt64.self, header, 0) == page,
            PageReader.load(UInt16.self, header, 10) & Self.overflowFlag != 0
        else { return nil }
        return reader.bytes(at: index * pageSizeBytes + Self.pageHeaderBytes, count: count)
    }
}
