public import Logging

extension Logger {
    /// A logger that discards everything, for tests that do not assert on logs.
    public static var discarding: Logger {
        Logger(label: "syncjournal.test", factory: { _ in SwiftLogNoOpLogHandler() })
    }
}
