import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `flock` on `<store>/store.lock`: every open journal holds it shared, and re-keying holds
/// it alone, so no process writes under a data key that a rotation is about to retire.
///
/// The lock is released explicitly when the journal goes, and by the kernel when the process
/// ends, however it ends. An exclusive lock is tried once: a holder is a live user of the store
/// (decision 0023).
final class StoreLock: Sendable {
    /// The lock file's descriptor; -1 for a read-only open of a store without a lock file.
    private let descriptor: Int32

    /// Takes the shared lock of the store in `directory` without creating or writing anything
    /// (decision 0024): the lock file is opened read-only, which `flock` accepts. A store without
    /// one was never opened by a build that rotates keys, so there is nothing to wait for.
    /// - Throws: ``JournalError/Code/storage`` when the lock file exists but cannot be opened.
    init(readingStore directory: URL) throws {
        let path = directory.appendingPathComponent("store.lock").path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = errno
            guard error == ENOENT else {
                throw JournalError(.storage, "cannot open \(path): \(String(cString: strerror(error)))")
            }
            self.descriptor = -1
            return
        }
        while flock(descriptor, LOCK_SH) != 0 {
            let error = errno
            guard error == EINTR else {
                close(descriptor)
                throw JournalError(.storage, "cannot lock \(path): \(String(cString: strerror(error)))")
            }
        }
        self.descriptor = descriptor
    }

    /// Takes the lock of the store in `directory`, shared or exclusive.
    /// - Throws: ``JournalError/Code/storeInUse`` when `exclusive` and another holder has it;
    ///   ``JournalError/Code/storage`` when the lock file cannot be opened.
    init(store directory: URL, exclusive: Bool) throws {
        let path = directory.appendingPathComponent("store.lock").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw JournalError(.storage, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        // A shared lock waits only for a rotation in progress; an exclusive one does not wait.
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
        guard descriptor >= 0 else { return }
        // Unlock before closing. A process being spawned holds a copy of every descriptor from
        // its fork until its exec closes them (O_CLOEXEC), and a flock lock belongs to the open
        // file that all the copies share: a close alone would leave the lock held until the
        // child's exec, and a rotation started just then would find the store in use. An
        // explicit unlock through any copy releases it at once (flock(2)).
        while flock(descriptor, LOCK_UN) != 0, errno == EINTR {}
        close(descriptor)
    }
}
