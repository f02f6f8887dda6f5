package import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which syncs of a store a live process owns: one lock file per sync in `<store>/leases/`,
/// locked with `flock(2)` by the process that runs, queues or cleans the sync.
///
/// The kernel drops a `flock` lock when the last descriptor of its open file goes away, so a
/// process that ends — normally, by a crash or by `SIGKILL` — releases its leases with it, and a
/// RUNNING state whose lease nobody holds is a run that was interrupted. Locks taken through two
/// separate `open` calls conflict even inside one process, so two managers of one store in the
/// same process exclude each other too. Descriptors are opened close-on-exec, so a child
/// process never inherits (and outlives its parent with) a lease, and a lease given back is
/// unlocked before its file is closed, so a child between its fork and its exec, which still
/// holds copies of the descriptors, does not keep it either: one attempt is the answer, never
/// retried after a wait (decision 0023).
///
/// Every lock attempt on a lease file, whether it takes the lease or only tests it, is made while
/// holding the folder's `gate` file exclusively. A test briefly locks the lease; without the gate,
/// a process taking the lease at that very moment would be refused as if the sync were running.
/// The gate is held for the few system calls of one attempt and never while waiting on anything
/// else, so blocking on it is short and cannot deadlock.
///
/// Lease files are empty and never removed: unlinking a file another process may be locking
/// would let two processes lock two different files of the same name.
package struct SyncLeases: Sendable {
    /// The folder holding the lease files: `leases` in the store directory.
    package let directory: URL

    /// The leases of the store in `storeDirectory`.
    package init(storeDirectory: URL) {
        directory = storeDirectory.appendingPathComponent("leases", isDirectory: true)
    }

    /// Takes the lease of sync `id` for this process, creating the folder and file when missing.
    ///
    /// - Returns: the lease, held until it is released or deallocated; `nil` when another owner
    ///   (another process, or another manager of this process) holds it.
    /// - Throws: ``SyncError/Code/leaseUnavailable`` when the folder or file cannot be created
    ///   or opened, or the system refuses the lock for another reason than a holder.
    package func acquire(syncId id: Int64) throws(SyncError) -> SyncLease? {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw SyncError(
                .leaseUnavailable, "Cannot create the lease folder \(directory.path): \(error)", cause: error)
        }
        let path = leasePath(id)
        let descriptor = try openFile(path, flags: O_RDWR | O_CREAT)
        let taken: Bool?
        do throws(SyncError) {
            taken = try withGate(creating: true) { () throws(SyncError) -> Bool in
                try Self.tryLock(descriptor, path: path)
            }
        } catch {
            close(descriptor)
            throw error
        }
        guard taken == true else {
            close(descriptor)
            return nil
        }
        return SyncLease(syncId: id, descriptor: descriptor)
    }

    /// Whether a live owner — another process, or any manager of this one — holds sync `id`'s
    /// lease. Creates nothing: a store whose syncs never ran has no lease files.
    ///
    /// The answer is final: a lease is released explicitly, so a process this one spawns, which
    /// holds copies of its descriptors from its fork to its exec, never keeps a lease that was
    /// given back looking held (decision 0023).
    ///
    /// - Throws: ``SyncError/Code/leaseUnavailable`` when an existing lease file cannot be opened
    ///   or tested.
    package func isHeld(syncId id: Int64) throws(SyncError) -> Bool {
        let path = leasePath(id)
        guard FileManager.default.fileExists(atPath: path) else { return false }
        let descriptor = try openFile(path, flags: O_RDONLY)
        defer { close(descriptor) }
        return try withGate(creating: false) { () throws(SyncError) -> Bool in
            guard try Self.tryLock(descriptor, path: path) else { return true }
            Self.unlock(descriptor)
            return false
        } ?? false
    }

    // MARK: - Files

    func leasePath(_ id: Int64) -> String {
        directory.appendingPathComponent("sync-\(id).lock").path
    }

    private var gatePath: String {
        directory.appendingPathComponent("gate.lock").path
    }

    /// Runs `body` holding the gate exclusively; `nil` without running it when the gate does
    /// not exist and `creating` is false (then no lease file was ever locked).
    private func withGate<T>(creating: Bool, _ body: () throws(SyncError) -> T) throws(SyncError) -> T? {
        guard creating || FileManager.default.fileExists(atPath: gatePath) else { return nil }
        let gate = try openFile(gatePath, flags: creating ? O_RDWR | O_CREAT : O_RDONLY)
        defer { close(gate) }
        while flock(gate, LOCK_EX) != 0 {
            guard errno == EINTR else { throw Self.lockError("lock", gatePath) }
        }
        defer { Self.unlock(gate) }
        return try body()
    }

    private func openFile(_ path: String, flags: Int32) throws(SyncError) -> Int32 {
        while true {
            let descriptor = open(path, flags | O_CLOEXEC, 0o644)
            if descriptor >= 0 { return descriptor }
            guard errno == EINTR else { throw Self.lockError("open", path) }
        }
    }

    /// Takes an exclusive lock without waiting; `false` when another open file holds one.
    static func tryLock(_ descriptor: Int32, path: String) throws(SyncError) -> Bool {
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            switch errno {
            case EINTR: continue
            case EWOULDBLOCK: return false
            default: throw lockError("lock", path)
            }
        }
        return true
    }

    /// Releases the lock held through `descriptor`, even while a process being spawned holds a
    /// copy of it: a `flock` lock belongs to the open file, which every copy shares, and an
    /// explicit unlock through any of them drops it, where a close drops it only with the last.
    static func unlock(_ descriptor: Int32) {
        // Unlocking a descriptor this process locked cannot fail but for EINTR.
        while flock(descriptor, LOCK_UN) != 0, errno == EINTR {}
    }

    private static func lockError(_ operation: String, _ path: String) -> SyncError {
        let code = errno
        return SyncError(
            .leaseUnavailable, "Cannot \(operation) the lease file \(path): \(String(cString: strerror(code)))")
    }
}
