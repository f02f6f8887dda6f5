public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A note a process leaves in an environment's directory when LMDB finds its data file damaged
/// while reading it, so that the next process to open it rebuilds the file instead of meeting
/// the damage again.
///
/// LMDB reports some damage as an error (`MDB_CORRUPTED`, `MDB_PAGE_NOTFOUND`) and some by
/// failing one of its assertions, which calls `abort()` after the environment's assert callback
/// (`mdb_env_set_assert`). An environment opened with ``EnvironmentOptions/notesDamage`` writes
/// this note, synced, in both cases: the process that met the damage may still end, but the
/// next open does not crash in a loop. The note names the data file by device and inode, so a
/// note about a file that was replaced since does not count.
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

    private static let assertionExit = Mutex<(status: Int32, line: [UInt8])?>(nil)

    /// Makes an LMDB assertion failure in an environment that notes damage end the process with
    /// `status` and one line on standard error, after the note is written, instead of
    /// `abort()`.
    ///
    /// For command-line tools, whose callers expect an exit status and one line, never a
    /// signal. Libraries leave it unset: an app's crash reporter should see the abort.
    /// - Parameters:
    ///   - status: the exit status.
    ///   - prefix: the start of the line, such as the tool's name and a colon.
    public static func endProcessOnAssertion(status: Int32, prefix: String) {
        let line =
            "\(prefix) the store's projections are damaged (LMDB found a bad page); the next open "
            + "rebuilds them from the journal, or run `journal-replay rebuild STORE`\n"
        assertionExit.withLock { $0 = (status, Array(line.utf8)) }
    }

    /// How the process ends after an assertion failure, as ``endProcessOnAssertion(status:prefix:)`` set.
    static var assertionExitPlan: (status: Int32, line: [UInt8])? {
        assertionExit.withLock { $0 }
    }
}
