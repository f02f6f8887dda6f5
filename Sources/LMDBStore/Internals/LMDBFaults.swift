import Synchronization

/// Failures planted in one environment's LMDB calls, so tests can see what a full map, a full
/// reader table or a failed commit does without filling a disk.
///
/// Reserved for tests: do not use. Faults are per environment, so tests running in parallel
/// do not disturb each other.
package final class LMDBFaults: Sendable {
    /// The calls a fault can be planted on.
    package enum Operation: Hashable, Sendable {
        /// `mdb_txn_begin`.
        case begin
        /// `mdb_put`.
        case put
        /// `mdb_txn_commit`.
        case commit
    }

    private let planned = Mutex<[Operation: [LMDBError]]>([:])

    package init() {}

    /// Makes the next call of `operation` fail with `error` (once per call of this method).
    package func inject(_ error: LMDBError, on operation: Operation) {
        planned.withLock { $0[operation, default: []].append(error) }
    }

    /// The planted error for this call of `operation`, if any, consuming it.
    func take(_ operation: Operation) -> LMDBError? {
        planned.withLock { plan in
            guard var errors = plan[operation], !errors.isEmpty else { return nil }
            let error = errors.removeFirst()
            plan[operation] = errors
            return error
        }
    }
}
