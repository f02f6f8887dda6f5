/// The sync manager's single worker: who runs now, and who waits, in submission order.
///
/// Mobile SDK runs syncs on one thread (`Executors.newFixedThreadPool(1)` on Android, a serial
/// queue on iOS); here a sync's task awaits its turn, so only one sync talks to the server and
/// appends pages at a time.
struct SyncTurns {
    private var isBusy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Whether a turn is free now; if so it is taken.
    mutating func tryTake() -> Bool {
        guard !isBusy else { return false }
        isBusy = true
        return true
    }

    /// Queues a waiter, resumed when the turns before it end.
    mutating func enqueue(_ continuation: CheckedContinuation<Void, Never>) {
        waiting.append(continuation)
    }

    /// Ends the current turn: the next waiter runs, or the worker becomes idle.
    mutating func release() {
        precondition(isBusy, "only a taken turn is released")
        if waiting.isEmpty {
            isBusy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
