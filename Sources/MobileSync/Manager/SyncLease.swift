#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One sync's lease, taken by ``SyncLeases/acquire(syncId:)`` and held until the last reference
/// to it goes: while it is held, no other process (and no other manager of this one) runs,
/// queues, cleans or deletes the sync.
package final class SyncLease: Sendable {
    /// The sync the lease is for.
    package let syncId: Int64
    private let descriptor: Int32

    init(syncId: Int64, descriptor: Int32) {
        self.syncId = syncId
        self.descriptor = descriptor
    }

    deinit {
        // Unlocked, not only closed: a process being spawned may hold a copy of the descriptor
        // until its exec, and the lock would last as long as that copy (decision 0023).
        SyncLeases.unlock(descriptor)
        close(descriptor)
    }
}
