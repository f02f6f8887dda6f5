public import Logging

extension Logger {
    /// A logger that drops every message.
    ///
    /// For code that must pass a `Logger` and has nobody to read it: tests that do not assert
    /// on logs, a replay's or a simulation's scratch stores, the demo's embedded simulator.
    /// Libraries accept a logger from their caller; this is what a caller with none passes.
    public static var discarding: Logger {
        Logger(label: "syncjournal.discarding", factory: { _ in SwiftLogNoOpLogHandler() })
    }
}
