import Logging

extension Logger {
    /// A logger that drops everything: a replay's or simulation's own stores log nothing that
    /// anyone reads; what they find is returned or thrown.
    static var silent: Logger {
        Logger(label: "syncjournal.replay", factory: { _ in SwiftLogNoOpLogHandler() })
    }
}
