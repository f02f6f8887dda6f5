import Foundation
import Synchronization

/// Pure work run on a second thread while the calling thread does something else, then joined
/// (decision 0034): a page's zstd frame beside the fold that stores its records, one half of a
/// page's record values beside the other.
///
/// The work must read nothing the calling thread writes meanwhile and touch no LMDB
/// transaction (lmdb.h: "A transaction and its cursors must only be used by a single thread"):
/// compression of bytes it was given, with zstd contexts it takes from ``ZstdContextPool``.
/// Its result is then a function of its input alone, so nothing stored depends on which thread
/// finishes first.
///
/// Every instance must be joined (``join()``) before its caller returns or throws, so no work
/// is left running with a pooled zstd context after the write that started it ended.
///
/// It runs on a `Thread` of its own, not on a Dispatch queue or in a task: the caller blocks in
/// ``join()`` inside an LMDB write, and a thread made for the work never waits for a pool that
/// the callers' own blocked threads might fill. A thread costs tens of microseconds, which is
/// why callers start one only for work of a page's size.
package final class WorkBeside<Value: Sendable>: Sendable {
    private let result = Mutex<Value?>(nil)
    /// Signalled once, when `result` holds the work's value.
    private let done = DispatchSemaphore(value: 0)

    /// Starts `work` on a new thread.
    /// - Parameter work: a pure computation of its captured inputs; see the type's rules.
    package init(_ work: @escaping @Sendable () -> Value) {
        let thread = Thread { [self] in
            let value = work()
            result.withLock { $0 = value }
            done.signal()
        }
        // zstd and the record splices keep little on the stack, but the default of a secondary
        // thread is small on some platforms; this matches the decode-ahead thread's.
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Waits for the work to end and returns its value. Call it exactly once.
    package func join() -> Value {
        done.wait()
        guard let value = result.withLock({ $0.take() }) else {
            preconditionFailure("WorkBeside.join() called twice")
        }
        return value
    }
}
