/// Waits until `condition` holds, checking it every few milliseconds, and fails after
/// `timeout`.
///
/// For what a test cannot await directly (a background task finishing its last step). The
/// timeout is generous on purpose: it only turns a hang into a failure, and never asserts
/// speed, so a loaded machine never fails a correct test.
/// - Throws: ``WaitTimedOut`` naming `what` when the condition still fails after `timeout`.
public func waitUntil(
    _ what: String, timeout: Duration = .seconds(120), _ condition: () throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while try !condition() {
        guard clock.now < deadline else { throw WaitTimedOut(what: what, timeout: timeout) }
        try await clock.sleep(for: .milliseconds(2))
    }
}

/// A condition a test waited for did not come true in time.
public struct WaitTimedOut: Error, CustomStringConvertible {
    /// The condition waited for.
    public var what: String
    /// How long the test waited.
    public var timeout: Duration

    public var description: String {
        "waited \(timeout) for \(what)"
    }
}
