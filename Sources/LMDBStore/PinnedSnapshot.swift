import Foundation
import Synchronization

/// A synced snapshot of an environment whose pages LMDB does not reuse while this value lives
/// (decision 0014).
///
/// It is a read transaction begun right after `mdb_env_sync` and never read through: LMDB
/// reuses no page that the oldest live reader's snapshot can still reach, in any process, so
/// every page of this snapshot stays on disk, synced, while later commits write elsewhere.
/// With ``meta`` recorded durably, a power loss that damaged everything written afterwards is
/// undone by ``SnapshotMeta/restore(into:)``.
///
/// The transaction holds a reader slot only: it takes no lock of the environment, so growing
/// the map (which remaps the file) goes on while it lives. It ends with ``release()`` or when
/// the value is freed, and with its process.
package final class PinnedSnapshot: Sendable {
    /// The snapshot's meta page, to record.
    package let meta: SnapshotMeta
    /// The environment the transaction belongs to, kept alive as long as it.
    private let environment: Environment
    // The pointer is only passed to `mdb_txn_abort`, once, under `isReleased`'s lock.
    nonisolated(unsafe) private let transaction: LMDBCalls.Transaction
    private let isReleased = Mutex(false)
    /// The reader table's epoch when the pin was taken; see ``isHeld``.
    private let epoch: UInt64

    init(environment: Environment, transaction: LMDBCalls.Transaction, meta: SnapshotMeta) {
        self.environment = environment
        self.transaction = transaction
        self.meta = meta
        epoch = environment.readerTableEpoch
    }

    /// Whether the pin still holds its reader slot: no other environment on the same file
    /// was opened or closed in this process since it was taken.
    ///
    /// LMDB keeps reader slots per process: an environment opened a second time in the same
    /// process resets the reader table, and one closed clears every slot of the process. Either
    /// silently ends the pin, so a caller that relies on it takes a new one when this is false.
    package var isHeld: Bool {
        !isReleased.withLock { $0 } && environment.readerTableEpoch == epoch
    }

    deinit {
        release()
    }

    /// Ends the pin: LMDB may reuse the snapshot's pages from the next commit on.
    ///
    /// A pin that no longer holds its slot (``isHeld``) is not aborted: its slot may belong to
    /// another reader by now, which the abort would end. Its small transaction record is left.
    package func release() {
        let held = environment.readerTableEpoch == epoch
        isReleased.withLock { released in
            guard !released else { return }
            released = true
            if held { LMDBCalls.transactionAbort(transaction) }
        }
    }
}

extension Environment {
    /// Syncs the environment and pins the snapshot that sync wrote.
    ///
    /// It runs under the environment's writer lock, which LMDB shares between processes, so no
    /// commit falls between the sync and the pin: the pinned snapshot is exactly what reached
    /// the disk. Its meta page is read back from the file.
    /// - Complexity: the `fsync` of the pages written since the last sync.
    /// - Throws: ``LMDBError`` when LMDB refuses, or ``DataFileDamage`` when the meta page
    ///   read back is not the snapshot's.
    package func pinSyncedSnapshot() throws -> PinnedSnapshot {
        try writeOnce { try pinSyncedSnapshot(during: $0) }
    }

    /// Syncs the environment and pins the snapshot of its last commit, from inside a write
    /// transaction of this environment that holds LMDB's writer lock.
    ///
    /// For a caller that must pin before it writes, in the same hold of the writer lock: what
    /// `transaction` has written so far is not committed, so it is neither synced nor pinned.
    /// - Throws: ``LMDBError`` when LMDB refuses, or ``DataFileDamage`` when the meta page
    ///   read back is not the snapshot's.
    package func pinSyncedSnapshot(during transaction: Transaction) throws -> PinnedSnapshot {
        try flush()
        // The write transaction is not committed, so a reader begun now sees the last
        // commit: the one the sync just wrote.
        let reader = try LMDBCalls.transactionBegin(pointer, readOnly: true)
        do {
            let meta = try SnapshotMeta.read(
                from: directory.appendingPathComponent("data.mdb"), transactionID: LMDBCalls.transactionID(reader))
            return PinnedSnapshot(environment: self, transaction: reader, meta: meta)
        } catch {
            LMDBCalls.transactionAbort(reader)
            throw error
        }
    }
}
