import CDamageFaults
public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A note a process leaves in an environment's directory when LMDB finds its data file damaged
/// while reading it, so that the next process to open it rebuilds the file instead of meeting
/// the damage again.
///
/// LMDB reports some damage as an error (`MDB_CORRUPTED`, `MDB_PAGE_NOTFOUND`), some by
/// failing one of its assertions, which calls `abort()` after the environment's assert callback
/// (`mdb_env_set_assert`), and some by faulting (SIGSEGV on a pointer read from a damaged page,
/// SIGBUS past the end of a short file). An environment opened with
/// ``EnvironmentOptions/notesDamage`` writes this note, synced, in every case: the process that
/// met the damage may still end, but the next open does not crash in a loop. A fault counts
/// only when the thread was in a transaction of the environment and the faulting instruction
/// is LMDB's or the faulting address is in the environment's map; others reach the handler
/// installed before (Swift's backtracer, or the default action) untouched. The note names the
/// data file by device and inode, so a note about a file that was replaced since does not
/// count.
public struct DamageNote: Sendable, Hashable {
    /// The note's file name in the environment's directory.
    public static let fileName = "damage.note"

    /// What LMDB said (its assertion or error text).
    public var message: String

    /// The note in `directory`, when one is there about the data file that is there now.
    public static func read(in directory: URL) -> DamageNote? {
        let note = directory.appendingPathComponent(fileName)
        guard let bytes = FileManager.default.contents(atPath: note.path) else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", maxSplits: 1)
        guard let first = lines.first,
            let identity = identity(of: directory.appendingPathComponent("data.mdb")),
            first == identity
        else { return nil }
        return DamageNote(message: lines.count > 1 ? lines[1].trimmingCharacters(in: .whitespacesAndNewlines) : "")
    }

    /// The identity a note records for `file`: `file <device>:<inode>`, or `nil` when missing.
    static func identity(of file: URL) -> String? {
        var status = stat()
        guard stat(file.path, &status) == 0 else { return nil }
        return "file \(status.st_dev):\(status.st_ino)"
    }

    // MARK: - Ending the process

    /// Makes a process that meets damage in an environment that notes it (an LMDB assertion
    /// failure, or a fault inside LMDB or in the environment's map) end with `status` and one
    /// line on standard error, after the note is written, instead of `abort()` or the signal.
    ///
    /// For command-line tools, whose callers expect an exit status and one line, never a
    /// signal. Libraries leave it unset: an app's crash reporter should see the crash.
    /// - Parameters:
    ///   - status: the exit status.
    ///   - prefix: the start of the line, such as the tool's name and a colon.
    public static func endProcessOnDamage(status: Int32, prefix: String) {
        let line = Array(
            ("\(prefix) the store's projections are damaged (LMDB found a bad page); the next open "
                + "rebuilds them from the journal, or run `journal-replay rebuild STORE`\n").utf8)
        line.withUnsafeBufferPointer { cdamage_plan_exit(status, $0.baseAddress, $0.count) }
    }
}
