#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes an environment's ``DamageNote``; handed to LMDB as the environment's user context,
/// so that the assert callback, which receives only the environment, can find it.
///
/// It is called on the way to `abort()`, not in a signal handler, but the process is in an
/// unknown state there: the note is written with plain `open`, `write`, `fsync` and `close`
/// of bytes prepared when the environment was opened.
final class DamageNoteWriter: Sendable {
    /// The note's path and the directory's, as C strings.
    let notePath: [CChar]
    let directoryPath: [CChar]
    /// `file <device>:<inode>` of the data file, and a line break.
    let identityLine: [UInt8]

    init?(directory: String) {
        let file = directory + "/data.mdb"
        var status = stat()
        guard stat(file, &status) == 0 else { return nil }
        notePath = Array((directory + "/" + DamageNote.fileName).utf8CString)
        directoryPath = Array(directory.utf8CString)
        identityLine = Array("file \(status.st_dev):\(status.st_ino)\n".utf8)
    }

    /// Writes the note with `message`, synced with its directory. Best effort: a note that
    /// cannot be written leaves the process as it would have been without one.
    func record(message: UnsafePointer<CChar>?) {
        let descriptor = open(notePath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        Self.writeAll(descriptor, identityLine)
        if let message {
            Self.writeAll(descriptor, Array(UnsafeRawBufferPointer(start: message, count: strlen(message))))
        }
        Self.writeAll(descriptor, [0x0A])
        _ = fsync(descriptor)
        close(descriptor)
        let directory = open(directoryPath, O_RDONLY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

    /// What the assert callback does after the note: ends the process as the tools asked, or
    /// returns so that LMDB aborts.
    static func endProcessIfAsked() {
        guard let plan = DamageNote.assertionExitPlan else { return }
        writeAll(STDERR_FILENO, plan.line)
        _exit(plan.status)
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeBytes {
                write(descriptor, $0.baseAddress.map { $0 + done }, bytes.count - done)
            }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            done += written
        }
    }
}
