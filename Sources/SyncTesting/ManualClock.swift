public import Determinism
import Synchronization

/// A clock whose time moves only when the test advances it: a sleep returns once
/// ``advance(by:)`` has moved the time to its deadline, or throws when its task is cancelled.
///
/// For code that waits between checks (a journal's watcher): the test sees who sleeps and for
/// how long (``sleeperCount``, ``requestedSleeps``) and decides when the wait is over, so it never
/// sleeps itself.
public final class ManualClock: Clock, Sendable {
    public typealias Duration = Swift.Duration
    public typealias Instant = ImmediateClock.Instant

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [UInt64: Sleeper] = [:]
        var nextKey: UInt64 = 0
        var requestedSleeps: [Duration] = []
    }

    private let state = Mutex(State())

    /// Creates a clock at offset zero.
    public init() {}

    public var now: Instant {
        state.withLock { $0.now }
    }

    public var minimumResolution: Duration {
        .zero
    }

    /// How many sleeps are waiting for the time to move.
    public var sleeperCount: Int {
        state.withLock { $0.sleepers.count }
    }

    /// How long each sleep asked to wait, oldest first.
    public var requestedSleeps: [Duration] {
        state.withLock { $0.requestedSleeps }
    }

    /// Moves the time forward, ending the sleeps whose deadline it reaches.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = state.now.advanced(by: duration)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for key in due.keys { state.sleepers[key] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let key = state.withLock { state in
            defer { state.nextKey += 1 }
            return state.nextKey
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ended = state.withLock { state -> Bool in
                    state.requestedSleeps.append(state.now.duration(to: deadline))
                    guard deadline > state.now, !Task.isCancelled else { return true }
                    state.sleepers[key] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                guard ended else { return }
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    continuation.resume()
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: key) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
