import Dispatch

/// Runs a ``SimulatorServer``'s tasks (its connections, request handlers and the simulator's
/// answers) on a serial queue of its own instead of the shared cooperative pool.
///
/// The pool is as wide as the machine's cores. When the process that hosts the simulator keeps
/// every pool thread busy (a test suite running hundreds of tests at once on two cores, or an
/// app doing long synchronous work), a server on the pool answered only when a thread came
/// free, so its clients' requests timed out although the simulator itself was idle. A serial
/// queue is backed by a thread of libdispatch's overcommitting pool, which grows when others
/// are busy; one queue per server keeps its answers in arrival order, as one Salesforce
/// connection sees them.
final class ServerExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { [self] in
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
