import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `flock` on `<store>/store.lock`: every open journal holds it shared, and re-keying holds
/// it alone, so no process writes under a data key that a rotation is about to retire.
///
/// The kernel drops the lock when the descriptor is closed (when the journal goes) or when
/// the process ends, however it ends.
final class StoreLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock of the store in `directory`, shared or exclusive.
    /// - Throws: ``JournalError/Code/storeInUse`` when `exclusive` and another holder has it;
    ///   ``JournalError/Code/storage`` when the lock file cannot be opened.
    init(store directory: URL, exclusive: Bool) throws {
        let path = directory.appendingPathComponent("store.lock").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw JournalError(.storage, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        // A shared lock waits only for a rotation in progress; an exclusive one never waits.
        let operation = exclusive ? LOCK_EX | LOCK_NB : LOCK_SH
        while flock(descriptor, operation) != 0 {
            let error = errno
            guard error == EINTR else {
                close(descriptor)
                if error == EWOULDBLOCK {
                    throw JournalError(
                        .storeInUse,
                        "the store at \(directory.path) is open in another process or journal: "
                            + "close every other user of the store first")
                }
                throw JournalError(.storage, "cannot lock \(path): \(String(cString: strerror(error)))")
            }
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }
}
