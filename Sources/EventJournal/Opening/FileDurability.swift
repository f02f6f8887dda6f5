import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file-system steps that make a file written outside LMDB durable: sync its data, then
/// sync the directory that names it, so a power loss leaves either the old name or the whole
/// new file. Checkpoints and the copy of an encrypted store's wrapped keys are written this way.
enum FileDurability {
    /// How much of a file is copied or checksummed at a time.
    static let chunkSizeBytes = 4 << 20

    /// Forces the file's data to the disk (`fsync`; `F_FULLFSYNC` on Apple platforms).
    static func flushFile(_ url: URL) throws {
        try withDescriptor(url, flags: O_RDONLY) { descriptor in
            guard flush(descriptor) else { throw posixError("fsync", url) }
        }
    }

    /// Forces the directory's entries (names created, renamed or removed) to the disk.
    static func flushDirectory(_ url: URL) throws {
        try withDescriptor(url, flags: O_RDONLY | O_DIRECTORY) { descriptor in
            guard flush(descriptor) else { throw posixError("fsync", url) }
        }
    }

    /// Syncs one open file. On Apple platforms `fsync` only hands the data to the drive, which
    /// may keep it in a volatile cache; `F_FULLFSYNC` asks the drive to write it out, and plain
    /// `fsync` remains for file systems that refuse it.
    private static func flush(_ descriptor: Int32) -> Bool {
        #if canImport(Darwin)
            if fcntl(descriptor, F_FULLFSYNC) == 0 { return true }
        #endif
        return fsync(descriptor) == 0
    }

    /// Numbers the temporary files of ``replace(_:with:)``, so two replacements in one process
    /// never share one.
    private static let replacementCount = Atomic<Int>(0)

    /// Replaces the small file at `url` by one holding `bytes`, so that a crash leaves the old
    /// file or the new one whole: a temporary file beside it is written and synced, renamed over
    /// it, and the folder synced. Temporary files of `url` left by processes that died before
    /// their rename are removed.
    static func replace(_ url: URL, with bytes: [UInt8]) throws {
        defer { removeLeftovers(of: url) }
        let folder = url.deletingLastPathComponent()
        let number = replacementCount.wrappingAdd(1, ordering: .relaxed).oldValue
        let partial = folder.appendingPathComponent(
            "\(url.lastPathComponent).partial-\(ProcessInfo.processInfo.processIdentifier)-\(number)")
        guard
            FileManager.default.createFile(
                atPath: partial.path, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
        else { throw posixError("write", partial) }
        do {
            try flushFile(partial)
            guard rename(partial.path, url.path) == 0 else { throw posixError("rename", url) }
        } catch {
            try? FileManager.default.removeItem(at: partial)
            throw error
        }
        try flushDirectory(folder)
    }

    /// Removes the temporary files of ``replace(_:with:)`` for `url` whose writer is no longer
    /// running: a process killed between writing one and renaming it leaves it behind. One of a
    /// running process (another replacement under way) is left alone; a failed removal is
    /// retried by the next replacement.
    static func removeLeftovers(of url: URL) {
        let folder = url.deletingLastPathComponent()
        let prefix = "\(url.lastPathComponent).partial-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            guard let writer = name.dropFirst(prefix.count).split(separator: "-").first.flatMap({ pid_t($0) }),
                writer != ProcessInfo.processInfo.processIdentifier, kill(writer, 0) != 0, errno == ESRCH
            else { continue }
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    /// The CRC-32C and size of a file, read in chunks.
    static func checksum(of url: URL) throws -> (checksum: UInt32, bytes: Int) {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var crc: UInt32 = 0
        var total = 0
        while let chunk = try handle.read(upToCount: chunkSizeBytes), !chunk.isEmpty {
            crc = chunk.withUnsafeBytes { CRC32C.checksum($0, continuing: crc) }
            total += chunk.count
        }
        return (crc, total)
    }

    /// Copies `source` to the new file `destination` and syncs it, returning the CRC-32C and
    /// size of what was copied, so a caller can check the copy against a manifest in one read.
    static func copy(_ source: URL, to destination: URL) throws -> (checksum: UInt32, bytes: Int) {
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        guard
            FileManager.default.createFile(
                atPath: destination.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else { throw posixError("create", destination) }
        let output = try FileHandle(forWritingTo: destination)
        defer { try? output.close() }
        var crc: UInt32 = 0
        var total = 0
        while let chunk = try input.read(upToCount: chunkSizeBytes), !chunk.isEmpty {
            crc = chunk.withUnsafeBytes { CRC32C.checksum($0, continuing: crc) }
            total += chunk.count
            try output.write(contentsOf: chunk)
        }
        try output.synchronize()
        return (crc, total)
    }

    private static func withDescriptor(_ url: URL, flags: Int32, _ body: (Int32) throws -> Void) throws {
        let descriptor = open(url.path, flags)
        guard descriptor >= 0 else { throw posixError("open", url) }
        defer { close(descriptor) }
        try body(descriptor)
    }

    private static func posixError(_ call: String, _ url: URL) -> JournalError {
        let code = errno
        let error = POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        let full = code == ENOSPC || code == EDQUOT
        return JournalError(full ? .storageFull : .storage, "\(call) of \(url.path) failed: \(error)", cause: error)
    }
}
