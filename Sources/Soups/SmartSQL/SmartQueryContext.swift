/// What the soup tables of one connection share: the reader of the execution under way, and
/// the first error a table met during it.
///
/// SQLite turns a callback's failure into text; the engine rethrows the error kept here
/// instead, so a storage failure stays ``SoupError/Code/storage`` with its cause.
final class SmartQueryContext {
    /// The reader of the execution under way; `nil` between executions.
    private var reader: (any SoupReader)?
    /// Whether the tables may read through indexes; `false` makes every table scan its records
    /// and leaves every constraint to SQLite: the reference the index walks are tested against.
    private(set) var usesIndexes = true
    private(set) var failure: (any Error)?
    /// The soups whose tables chose plans since ``startPlanning()``, with the record counts
    /// the plans were costed for: what a prepared statement's plans depend on beyond the catalog.
    private(set) var plannedRecordCounts: [UInt32: Int] = [:]

    /// Starts an execution that reads through `reader`.
    func begin(reader: any SoupReader, usesIndexes: Bool) {
        self.reader = reader
        self.usesIndexes = usesIndexes
        failure = nil
    }

    /// Ends the execution: the reader, whose transaction is about to end, is let go.
    func end() {
        reader = nil
        failure = nil
    }

    /// Starts collecting the record counts that plans are costed for (a statement is prepared).
    func startPlanning() {
        plannedRecordCounts.removeAll(keepingCapacity: true)
    }

    /// Notes that a plan for `soup` was costed for `recordCount` records.
    func notePlanned(_ soup: SmartSoup, recordCount: Int) {
        plannedRecordCounts[soup.number] = recordCount
    }

    /// The reader of the execution under way.
    /// - Throws: ``SoupError/Code/storage`` outside an execution, which would be a bug: SQLite
    ///   reads the tables only while a statement runs.
    func currentReader() throws -> any SoupReader {
        guard let reader else { throw SoupError(.storage, "a soup table was read outside a smart query") }
        return reader
    }

    /// Keeps `error` when it is the first, and returns the text SQLite gets for it.
    func record(_ error: any Error) -> String {
        if failure == nil { failure = error }
        return "\(error)"
    }
}
