// Which clang module declares `struct stat` depends on the order modules load; without
// Dispatch imported, its members may be refused as coming from an unimported module.
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where an environment's map lies and how much of it the data file backs: what a key or value
/// LMDB hands back is checked against before anything reads it (issue 49, decision 0027).
///
/// LMDB maps more than the file holds, and trusts the sizes and offsets it finds on a page. A
/// page of random bytes can make it return a value of up to 4 GiB starting inside the page;
/// reading it runs past the end of the file while still inside the map, and the kernel raises
/// `SIGBUS` there instead of returning an error. A buffer that lies wholly in the file, or wholly
/// outside the map (a write's dirty page on the heap), is safe to read; one that reaches into the
/// map past the file's end is damage.
///
/// The map moves only while no transaction of the process is open (the environment's map lock),
/// and the file only grows while the environment is open, so the cached end is a lower bound:
/// a buffer past it makes one `fstat` before it counts as damage.
final class MappedFileExtent: Sendable {
    /// The data file's descriptor, LMDB's own (`mdb_env_get_fd`); `-1` when unknown, which
    /// makes every buffer past the cached end damage.
    private let descriptor: Int32
    private let mapStart = Atomic<UInt>(0)
    private let mapEnd = Atomic<UInt>(0)
    private let fileEnd = Atomic<UInt>(0)

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Records where the map of `size` bytes lies now, and the file's size; called whenever the
    /// map changes. LMDB does not say where it mapped the file (`mdb_env_info` gives the
    /// address only for `MDB_FIXEDMAP`), so the process's own map list says: the mapping of the
    /// file's inode from offset 0 with the map's size. Where there is no such list (not Linux),
    /// or the file is mapped that way twice, nothing is checked.
    func noteMap(size: Int) {
        var status = stat()
        guard descriptor >= 0, fstat(descriptor, &status) == 0,
            let start = Self.mappingStart(inode: UInt64(status.st_ino), bytes: size)
        else {
            mapStart.store(0, ordering: .relaxed)
            mapEnd.store(0, ordering: .relaxed)
            return
        }
        mapStart.store(start, ordering: .relaxed)
        mapEnd.store(start &+ UInt(max(size, 0)), ordering: .relaxed)
        readFileSize()
    }

    /// The start of the one mapping of `inode` from offset 0 that spans `bytes`, read from
    /// `/proc/self/maps` (`start-end perms offset device inode path`), or `nil`.
    private static func mappingStart(inode: UInt64, bytes: Int) -> UInt? {
        guard let list = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return nil }
        var found: [UInt] = []
        for line in list.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 5, UInt64(fields[4]) == inode, UInt64(fields[2], radix: 16) == 0 else { continue }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16),
                end &- start == UInt(max(bytes, 0))
            else { continue }
            found.append(start)
        }
        return found.count == 1 ? found[0] : nil
    }

    /// Whether reading `count` bytes at `address` cannot fault past the end of the file: checked
    /// against the cached size first, and against the file's size now when that fails.
    /// - Complexity: O(1); a system call only when the buffer reaches past the cached end.
    func holds(_ address: UnsafeRawPointer?, count: Int) -> Bool {
        guard let address else { return true }
        let start = UInt(bitPattern: address)
        let (end, overflow) = start.addingReportingOverflow(UInt(max(count, 0)))
        guard !overflow else { return false }
        if isSafe(start, end) { return true }
        readFileSize()
        return isSafe(start, end)
    }

    private func isSafe(_ start: UInt, _ end: UInt) -> Bool {
        let map = mapStart.load(ordering: .relaxed)
        let mapLimit = mapEnd.load(ordering: .relaxed)
        // The map was not found (``noteMap(size:)``): nothing to check against.
        guard mapLimit > map else { return true }
        // Outside the map altogether: a page a write transaction copied to the heap.
        if end <= map || start >= mapLimit { return true }
        return start >= map && end <= fileEnd.load(ordering: .relaxed)
    }

    private func readFileSize() {
        var status = stat()
        guard descriptor >= 0, fstat(descriptor, &status) == 0 else { return }
        let map = mapStart.load(ordering: .relaxed)
        let mapLimit = mapEnd.load(ordering: .relaxed)
        fileEnd.store(min(map &+ UInt(max(status.st_size, 0)), mapLimit), ordering: .relaxed)
    }
}
