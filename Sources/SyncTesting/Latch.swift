/// A one-shot signal between a test and the code it holds: ``wait()`` returns once ``open()``
/// was called.
public actor Latch {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Creates a closed latch.
    public init() {}

    /// Opens the latch: every waiter, and every later ``wait()``, returns.
    public func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }

    /// Suspends until the latch is open.
    public func wait() async {
        guard !isOpen else { return }
        await withCheckedContinuation { waiters.append($0) }
    }
}
