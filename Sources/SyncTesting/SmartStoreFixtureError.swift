/// A ``SmartStoreFixture`` could not write its file: SQLite's message.
public struct SmartStoreFixtureError: Error, Sendable, CustomStringConvertible {
    /// What SQLite said.
    public var message: String

    /// The ``message``.
    public var description: String {
        message
    }
}
