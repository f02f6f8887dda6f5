public import Foundation

// LMDB 0.9 trusts what it reads on a page: the node count (from `mp_lower`), each node's
// offset, its key and value sizes, the child and overflow page numbers. A page of random bytes
// makes it read up to 64 KiB past the page, and a page near the end of the file is then read
// past the end of the file, inside the map: `SIGBUS` in `mdb_cursor_get` (issue 49). A branch
// page where a leaf should be makes its `IS_LEAF` assertion fail: `abort()`. Neither is an
// error a caller can catch, so a file nothing can rebuild (the journal) is walked with `pread`
// before it is mapped, and refused when a page is not what LMDB writes (decision 0027).
extension DataFileHeader {
    /// How many times ``checkTrees(of:)`` walks again when a writer in another process
    /// committed during its walk.
    static let treeWalkAttemptMax = 3

    /// Checks every page LMDB can reach from the newer meta page of `file` without mapping it:
    /// the main database, every named database and the free-page database, down to their
    /// leaves and the first page of each value stored on overflow pages.
    ///
    /// A page passes when its header names its own number and the kind its parent expects (a
    /// branch or leaf page, an overflow page), its node offsets, keys and values lie inside
    /// it, its child and overflow pages lie inside the file and below the last page, no page
    /// is reached twice, and no tree is deeper than LMDB's cursor can follow (32). Databases
    /// with duplicate keys (`MDB_DUPSORT`) are not read: a node that says it holds duplicates
    /// counts as damage, since the files checked here (the journal's) never have them.
    ///
    /// A walk that fails while another process commits is walked again (a commit may reuse
    /// pages of the snapshot walked once a newer one is committed); a failure counts when the
    /// newer meta page did not change during the walk.
    /// - Complexity: reads every branch and leaf page and the first page of every overflow
    ///   value once: O(file size) with `pread`, nothing mapped.
    /// - Throws: ``DataFileDamage`` naming the first page that LMDB must not be let read.
    public static func checkTrees(of file: URL) throws(DataFileDamage) {
        guard checksLinkedLibrary else { return }
        for _ in 0..<treeWalkAttemptMax {
            let unchanged = try PageReader.withReader(of: file) { reader throws(DataFileDamage) -> Bool in
                guard reader.fileBytes > 0 else { return true }
                let (header, meta) = try readNewerMeta(reader, file: file)
                do throws(DataFileDamage) {
                    var walk = TreeWalk(header: header, reader: reader, file: file)
                    try walk.walk(root: meta.mainRoot, tree: "main database", kind: .main)
                    try walk.walk(root: meta.freeRoot, tree: "free-page database", kind: .freePages)
                    return true
                } catch {
                    guard try readNewerMeta(reader, file: file).header.transactionID != header.transactionID else {
                        throw error
                    }
                    return false
                }
            }
            if unchanged ?? true { return }
        }
    }
}

/// One walk of a data file's trees (``DataFileHeader/checkTrees(of:)``).
private struct TreeWalk {
    /// `P_BRANCH`, `P_LEAF` and `P_OVERFLOW` in `MDB_page.mp_flags`; `F_BIGDATA`, `F_SUBDATA`
    /// and `F_DUPDATA` in a node's flags; the size of `MDB_db`; `CURSOR_STACK`.
    static let branchFlag: UInt16 = 0x01
    static let leafFlag: UInt16 = 0x02
    static let overflowFlag: UInt16 = 0x04
    static let bigDataFlag: UInt16 = 0x01
    static let subDatabaseFlag: UInt16 = 0x02
    static let duplicatesFlag: UInt16 = 0x04
    static let databaseRecordBytes = 48
    static let depthMax = 32
    /// `NODESIZE`: a node's header before its key.
    static let nodeHeaderBytes = 8

    /// What a tree's leaves hold.
    enum Kind {
        /// Named databases (`F_SUBDATA` nodes), whose trees are walked too.
        case main
        /// Keys and values.
        case values
        /// Lists of free pages.
        case freePages
    }

    let header: DataFileHeader
    let reader: PageReader
    let file: URL
    /// Every page reached so far: a page reached twice is a loop or a shared page.
    var visited: Set<UInt64> = []

    init(header: DataFileHeader, reader: PageReader, file: URL) {
        self.header = header
        self.reader = reader
        self.file = file
    }

    private var pageBytes: Int { header.pageSizeBytes }

    /// Walks the tree whose root is `root` (none for `P_INVALID`).
    mutating func walk(root: UInt64, tree: String, kind: Kind) throws(DataFileDamage) {
        guard root != DataFileHeader.invalidPage else { return }
        var pending: [(page: UInt64, depth: Int)] = [(root, 1)]
        while let (page, depth) = pending.popLast() {
            guard depth <= Self.depthMax else { throw damage(page, tree, "it is deeper than LMDB follows") }
            let bytes = try read(page, tree: tree)
            let flags = PageReader.load(UInt16.self, bytes, 10)
            let nodes = try nodeOffsets(bytes, page: page, tree: tree)
            switch flags {
            case Self.branchFlag:
                // LMDB asserts that a branch page of a database other than the free pages'
                // has two children at least.
                guard nodes.count >= (kind == .freePages ? 1 : 2) else {
                    throw damage(page, tree, "it is a branch page of \(nodes.count) node")
                }
                for node in nodes.reversed() {
                    let child =
                        UInt64(PageReader.load(UInt16.self, bytes, node))
                        | UInt64(PageReader.load(UInt16.self, bytes, node + 2)) << 16
                        | UInt64(PageReader.load(UInt16.self, bytes, node + 4)) << 32
                    pending.append((child, depth + 1))
                }
            case Self.leafFlag:
                for node in nodes {
                    if let subtree = try leafNode(node, of: bytes, page: page, tree: tree, kind: kind) {
                        try walk(root: subtree.root, tree: "database \(subtree.name)", kind: .values)
                    }
                }
            default:
                throw damage(page, tree, "its flags 0x\(String(flags, radix: 16)) are not a branch or leaf page's")
            }
        }
    }

    /// Checks one leaf node; returns the root and name of the named database it records.
    private mutating func leafNode(
        _ node: Int, of bytes: [UInt8], page: UInt64, tree: String, kind: Kind
    ) throws(DataFileDamage) -> (root: UInt64, name: String)? {
        let dataBytes =
            Int(PageReader.load(UInt16.self, bytes, node)) | Int(PageReader.load(UInt16.self, bytes, node + 2)) << 16
        let flags = PageReader.load(UInt16.self, bytes, node + 4)
        let keyBytes = Int(PageReader.load(UInt16.self, bytes, node + 6))
        let dataStart = node + Self.nodeHeaderBytes + keyBytes
        guard dataStart <= bytes.count else { throw damage(page, tree, "a key runs past the page") }
        guard flags & Self.duplicatesFlag == 0 else { throw damage(page, tree, "a node says it holds duplicates") }
        if flags & Self.bigDataFlag != 0 {
            guard dataStart + 8 <= bytes.count else { throw damage(page, tree, "an overflow page number runs past it") }
            try overflow(PageReader.load(UInt64.self, bytes, dataStart), holding: dataBytes, tree: tree)
            return nil
        }
        guard dataStart + dataBytes <= bytes.count else { throw damage(page, tree, "a value runs past the page") }
        guard flags & Self.subDatabaseFlag != 0 else { return nil }
        guard kind == .main, dataBytes == Self.databaseRecordBytes else {
            throw damage(page, tree, "a node says it holds a database")
        }
        let record = Array(bytes[dataStart..<(dataStart + dataBytes)])
        // `md_flags` at 4 (`MDB_DUPSORT` is 0x04), `md_root` at 40.
        guard PageReader.load(UInt16.self, record, 4) & Self.duplicatesFlag == 0 else {
            throw damage(page, tree, "a database says it holds duplicates")
        }
        let name = String(decoding: bytes[(node + Self.nodeHeaderBytes)..<dataStart], as: UTF8.self)
        return (PageReader.load(UInt64.self, record, 40), name)
    }

    /// Checks the overflow pages from `page` that hold a value of `count` bytes: the first
    /// names itself, is an overflow page of at least the pages the value needs, and they all
    /// lie inside the file.
    private mutating func overflow(_ page: UInt64, holding count: Int, tree: String) throws(DataFileDamage) {
        let needed = UInt64((DataFileHeader.pageHeaderBytes + count + pageBytes - 1) / pageBytes)
        let (end, tooLarge) = page.addingReportingOverflow(needed)
        guard page >= 2, !tooLarge, end - 1 <= header.lastPage, end <= UInt64(reader.fileBytes / pageBytes),
            let index = Int(exactly: page),
            let first = reader.bytes(at: index * pageBytes, count: DataFileHeader.pageHeaderBytes)
        else { throw damage(page, tree, "a value's overflow pages are not all in the file") }
        guard PageReader.load(UInt64.self, first, 0) == page,
            PageReader.load(UInt16.self, first, 10) == Self.overflowFlag,
            UInt64(PageReader.load(UInt32.self, first, 12)) >= needed
        else { throw damage(page, tree, "it is not the overflow page a value names") }
        guard visited.insert(page).inserted else { throw damage(page, tree, "it is reached twice") }
    }

    /// The whole page `page`, which must lie in the file, name itself and be reached once.
    private mutating func read(_ page: UInt64, tree: String) throws(DataFileDamage) -> [UInt8] {
        guard page >= 2, page <= header.lastPage, let index = Int(exactly: page),
            let bytes = reader.bytes(at: index * pageBytes, count: pageBytes)
        else { throw damage(page, tree, "it is not in the file below its last page \(header.lastPage)") }
        guard PageReader.load(UInt64.self, bytes, 0) == page else {
            throw damage(page, tree, "its header names page \(PageReader.load(UInt64.self, bytes, 0))")
        }
        guard visited.insert(page).inserted else { throw damage(page, tree, "it is reached twice") }
        return bytes
    }

    /// The offsets of a page's nodes (`mp_ptrs`), each inside the page after `mp_upper`.
    private func nodeOffsets(_ bytes: [UInt8], page: UInt64, tree: String) throws(DataFileDamage) -> [Int] {
        let lower = Int(PageReader.load(UInt16.self, bytes, 12))
        let upper = Int(PageReader.load(UInt16.self, bytes, 14))
        guard lower >= DataFileHeader.pageHeaderBytes, lower <= upper, upper <= bytes.count,
            (lower - DataFileHeader.pageHeaderBytes) % 2 == 0
        else { throw damage(page, tree, "its free space (\(lower), \(upper)) is not inside it") }
        var offsets: [Int] = []
        for slot in stride(from: DataFileHeader.pageHeaderBytes, to: lower, by: 2) {
            let offset = Int(PageReader.load(UInt16.self, bytes, slot))
            guard offset >= upper, offset + Self.nodeHeaderBytes <= bytes.count else {
                throw damage(page, tree, "a node offset \(offset) is outside it")
            }
            offsets.append(offset)
        }
        return offsets
    }

    private func damage(_ page: UInt64, _ tree: String, _ why: String) -> DataFileDamage {
        DataFileDamage(file: file, reason: "page \(page) of its \(tree) is not what LMDB writes: \(why)")
    }
}
