import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A seeded point at which a test's child process kills itself: just before or just after the
/// Nth write commit of the environments in folders of one name.
///
/// Crash tests used to kill their children from outside at wall-clock moments, and so counted
/// on a child being far enough into its work when the signal came; on a loaded machine a kill
/// could land before the first write, or after the last. A child that kills itself at its own
/// Nth commit crashes at the same point on every run, however slow the machine.
///
/// Reserved for tests: do not use. A child reads it from ``environmentVariable`` at start
/// (``arm(fromEnvironment:)``); nothing else arms it.
package struct CrashPoint: Sendable, Hashable, CustomStringConvertible {
    /// Where around the commit the process dies.
    package enum Moment: String, Sendable, Hashable, CaseIterable {
        /// With the transaction written and not committed: none of it survives.
        case beforeCommit = "before"
        /// Right after the commit returned: all of it survives, and nothing the writer does
        /// next (journal the outcome, fold into the other environment, print an ack) happens.
        case afterCommit = "after"
    }

    /// The name of the environments' folder whose write commits are counted (`journal`,
    /// `projections`).
    package var folderName: String
    /// Which commit, from 1, counting every write commit of such environments in the process.
    package var commit: Int
    /// Before or after that commit.
    package var moment: Moment

    package init(folderName: String, commit: Int, moment: Moment) {
        precondition(commit >= 1, "commits count from 1")
        self.folderName = folderName
        self.commit = commit
        self.moment = moment
    }

    /// The variable a child process reads its crash point from.
    package static let environmentVariable = "SYNCJOURNAL_TEST_CRASH_AT"

    /// `FOLDER:before|after:N`, the form of ``environmentVariable``.
    package var description: String { "\(folderName):\(moment.rawValue):\(commit)" }

    /// Parses ``description``'s form; `nil` for anything else.
    package init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, !parts[0].isEmpty, let moment = Moment(rawValue: parts[1]),
            let commit = Int(parts[2]), commit >= 1
        else { return nil }
        self.init(folderName: parts[0], commit: commit, moment: moment)
    }

    /// The environment to give a child that must crash here.
    package var environment: [String: String] { [Self.environmentVariable: description] }
}

/// The process's armed crash point and the count of commits it has seen.
package enum CrashPlan {
    private static let isArmed = Atomic(false)
    private static let state = Mutex<(point: CrashPoint, commits: Int)?>(nil)

    /// Arms `point` for this process, replacing any earlier one.
    package static func arm(_ point: CrashPoint) {
        state.withLock { $0 = (point, 0) }
        isArmed.store(true, ordering: .releasing)
    }

    /// Arms the point `environment` names under ``CrashPoint/environmentVariable``, if any.
    /// - Returns: the armed point.
    /// - Throws: ``CrashPlanError`` when the variable is set to something that is not a point,
    ///   so a typo in a test cannot pass as a run that never crashes.
    @discardableResult
    package static func arm(fromEnvironment environment: [String: String]) throws -> CrashPoint? {
        guard let text = environment[CrashPoint.environmentVariable] else { return nil }
        guard let point = CrashPoint(text) else { throw CrashPlanError(text: text) }
        arm(point)
        return point
    }

    /// Called around every write commit; kills the process when this is the armed point.
    static func reach(_ moment: CrashPoint.Moment, folderName: @autoclosure () -> String) {
        // One atomic load when unarmed, the only case outside tests.
        guard isArmed.load(ordering: .acquiring) else { return }
        let name = folderName()
        let crashes = state.withLock { state -> Bool in
            guard var armed = state, armed.point.folderName == name else { return false }
            if moment == .beforeCommit { armed.commits += 1 }
            state = armed
            return armed.commits == armed.point.commit && armed.point.moment == moment
        }
        // SIGKILL, like the kill from outside it replaces: no handler, no flush, no atexit.
        if crashes { raise(SIGKILL) }
    }
}

/// The crash point variable holds something that is not a point.
package struct CrashPlanError: Error, CustomStringConvertible {
    package var text: String
    package var description: String {
        "\(CrashPoint.environmentVariable)=\(text) is not FOLDER:before|after:N (N from 1)"
    }
}
