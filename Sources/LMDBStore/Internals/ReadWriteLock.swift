#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A POSIX read-write lock.
///
/// Transactions hold it shared; growing the map holds it exclusively, because LMDB requires that
/// `mdb_env_set_mapsize` is called while no transaction of this process is active.
// @unchecked because the pthread lock is the synchronization: it is allocated once, never moved,
// and destroyed only in deinit, when no thread can hold a reference.
package final class ReadWriteLock: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    package init() {
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    package func withSharedLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }

    /// Takes the lock shared until ``unlock()``; for holders whose scope is not one call.
    package func lockShared() {
        pthread_rwlock_rdlock(lock)
    }

    /// Releases a lock taken with ``lockShared()``.
    package func unlock() {
        pthread_rwlock_unlock(lock)
    }

    package func withExclusiveLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
}
