/// How far an import has come, for a progress display.
///
/// Reading reports every ``SmartStoreDatabase/progressRowInterval`` rows of the soup tables;
/// writing reports each soup's records as they are appended.
public struct SmartStoreImportProgress: Hashable, Sendable {
    /// The step an import is in.
    public enum Phase: String, Hashable, Sendable {
        /// Reading and checking the database file.
        case reading
        /// Appending the soups, records and syncs to the store's journal.
        case writing
        /// Storing the records of soups past the compression threshold compressed with their
        /// new dictionary, a batch per commit (decisions 0030 and 0033).
        case compressing
    }

    /// The step.
    public var phase: Phase
    /// Rows (reading) or records (writing, compressing) done so far.
    public var done: Int64
    /// Rows or records in all.
    public var total: Int64

    /// Creates a progress report.
    /// - Parameters:
    ///   - phase: the step.
    ///   - done: how many are done.
    ///   - total: how many there are.
    public init(phase: Phase, done: Int64, total: Int64) {
        self.phase = phase
        self.done = done
        self.total = total
    }
}
