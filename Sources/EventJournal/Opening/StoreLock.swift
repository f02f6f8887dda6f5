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
    /// How often, and how long apart, an exclusive lock is tried again before the store is
    /// reported in use: half a second in all.
    private static let busyRetryMax = 20
    private static let busyRetryMicroseconds: UInt32 = 25_000

    /// Takes the lock of the store in `directory`, shared or exclusive.
    /// - Throws: ``JournalError/Code/storeInUse`` when `exclusive` and another holder still has
    ///   it after half a second;
    ///   ``JournalError/Code/storage`` when the lock file cannot be opened.
    init(store directory: URL, exclusive: Bool) throws {
        let path = directory.appendingPathComponent("store.lock").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw JournalError(.storage, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        // A shared lock waits only for a rotation in progress; an exclusive one waits only a
        // moment. A process being spawned holds copies of the spawner's descriptors from its
        // fork to its exec, so a journal closed just then keeps its shared lock that long: a
        // rotation right after the store's last user went failed once under load.
        let operation = exclusive ? LOCK_EX | LOCK_NB : LOCK_SH
        var busyRetries = 0
        while flock(descriptor, operation) != 0 {
            let error = errno
            if error == EWOULDBLOCK, busyRetries < Self.busyRetryMax {
                busyRetries += 1
                usleep(Self.busyRetryMicroseconds)
                continue
            }
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
