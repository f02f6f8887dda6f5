import Foundation
import Synchronization

// What a caller coordinating two environments needs beyond `read` and `write`: a write that is
// tried once (so the caller, not this environment, decides what a retry re-runs), growing the
// map on request, and a read transaction that is begun only if the closure asks for it.
extension Environment {
    /// Runs `body` in a write transaction and commits it, without the map-full retry of
    /// ``write(_:)``.
    ///
    /// Reserved for code that coordinates several environments (the journal writes an entry
    /// in one and its projections in another): only it knows what must run again when one map
    /// is full. On ``LMDBError/mapFull`` it aborts, calls ``growMap()`` and retries the whole.
    /// A map grown by another process (`MDB_MAP_RESIZED` when the transaction begins) is
    /// adopted here, because nothing has run yet.
    /// - Throws: what `body` throws, or the ``LMDBError`` of the commit; the transaction is
    ///   aborted then.
    package func writeOnce<T>(_ body: (Transaction) throws -> T) throws -> T {
        try writerLock.withExclusiveLock {
            var adoptedResize = false
            while true {
                do {
                    return try mapLock.withSharedLock { try runWriteTransaction(body) }
                } catch let error as WriteBeginFailure where error.code == .mapResized && !adoptedResize {
                    adoptedResize = true
                    try adoptMapSizeFromFile()
                } catch let error as WriteBeginFailure {
                    throw error.code
                }
            }
        }
    }

    /// Runs `body` with a read transaction that begins only when `body` first asks for it.
    ///
    /// A reader that usually needs one environment and sometimes a second one pays for the
    /// second only when it uses it. The transaction ends when `body` returns.
    package func withDeferredRead<T>(_ body: (DeferredReadTransaction) throws -> T) throws -> T {
        let deferred = DeferredReadTransaction(environment: self)
        defer { deferred.end() }
        return try blamingFaults { try body(deferred) }
    }
}

/// The error `writeOnce` sees when `mdb_txn_begin` fails, so that a failure to begin (safe to
/// retry) is never confused with the same code thrown by the body.
struct WriteBeginFailure: Error {
    var code: LMDBError
}

/// A read transaction begun on first use; see ``Environment/withDeferredRead(_:)``.
///
/// It belongs to the closure it was passed to and is not `Sendable`: LMDB's `MDB_NOTLS` lets a
/// read transaction move between threads, but this type's bookkeeping is not synchronized.
package final class DeferredReadTransaction {
    private let environment: Environment
    private var pointer: LMDBCalls.Transaction?

    init(environment: Environment) {
        self.environment = environment
    }

    /// The transaction, begun now if it was not yet.
    ///
    /// The corresponding LMDB function is `mdb_txn_begin(MDB_RDONLY)`.
    package func transaction() throws -> Transaction {
        if let pointer {
            return Transaction(pointer: pointer, environment: environment, isReadOnly: true)
        }
        var adoptedResize = false
        while true {
            // Held until `end`: growing the map waits for every transaction of the process.
            environment.mapLock.lockShared()
            do {
                if let fault = environment.faults.take(.begin) { throw fault }
                let begun = try LMDBCalls.transactionBegin(environment.pointer, readOnly: true)
                pointer = begun
                return Transaction(pointer: begun, environment: environment, isReadOnly: true)
            } catch let error as LMDBError where error == .mapResized && !adoptedResize {
                environment.mapLock.unlock()
                adoptedResize = true
                try environment.adoptMapSizeFromFile()
            } catch {
                environment.mapLock.unlock()
                throw error
            }
        }
    }

    func end() {
        guard let pointer else { return }
        LMDBCalls.transactionAbort(pointer)
        self.pointer = nil
        environment.mapLock.unlock()
    }
}

// LMDB keeps one reader table per data file and its slots per process: opening the same
// environment again in a process resets the table, and closing one clears every slot of the
// process. Each open and close advances an epoch per directory, so a reader that must outlive
// such an event (a ``PinnedSnapshot``) can tell that it did.
private let readerTableEpochs = Mutex<[String: UInt64]>([:])

extension Environment {
    /// This environment's directory's epoch: how many times an environment on it was opened
    /// or closed in this process.
    var readerTableEpoch: UInt64 {
        readerTableEpochs.withLock { $0[readerTableKey, default: 0] }
    }

    /// Counts an open or a close of the environment in the directory `key` names.
    static func advanceReaderTableEpoch(of key: String) {
        readerTableEpochs.withLock { $0[key, default: 0] += 1 }
    }
}
