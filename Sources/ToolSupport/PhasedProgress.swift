import Synchronization

/// Progress of work that library code reports through a `@Sendable` callback, in named phases:
/// one ``ProgressReporter`` per phase, finished when the next phase starts.
///
/// ```swift
/// let progress = PhasedProgress()
/// options.openingProgress = { step in progress.update(step.phase.rawValue, step.folded, of: step.total) }
/// let store = try SyncStore(directory: url, clock: clock, options: options, logger: logger)
/// progress.finish()
/// ```
public final class PhasedProgress: Sendable {
    private struct Current {
        var phase: String
        var reporter: ProgressReporter
    }

    private let current = Mutex<Current?>(nil)
    private let makeReporter: @Sendable (String) -> ProgressReporter

    /// Creates progress written to standard error (see ``ProgressReporter/init(_:)``).
    public convenience init() {
        self.init { ProgressReporter($0) }
    }

    /// Creates progress written by the reporters `makeReporter` returns for each phase's label.
    public init(makeReporter: @escaping @Sendable (String) -> ProgressReporter) {
        self.makeReporter = makeReporter
    }

    /// Reports that `done` of `total` units of `phase` are finished.
    public func update(_ phase: String, _ done: UInt64, of total: UInt64) {
        current.withLock { current in
            if current?.phase != phase {
                current?.reporter.finish()
                current = Current(phase: phase, reporter: makeReporter(phase))
            }
            current?.reporter.update(done, of: total)
        }
    }

    /// Ends the last phase's line.
    public func finish() {
        current.withLock { current in
            current?.reporter.finish()
            current = nil
        }
    }
}
