/// What the soup tables of one smart query execution share: the reader of its read
/// transaction, and the first error a table met.
///
/// SQLite turns a callback's failure into text; the engine rethrows the error kept here
/// instead, so a storage failure stays ``SoupError/Code/storage`` with its cause.
final class SmartQueryContext {
    let reader: any SoupReader
    /// Whether the tables may read through indexes; `false` makes every table scan its records
    /// and leaves every constraint to SQLite: the reference the index walks are tested against.
    let usesIndexes: Bool
    private(set) var failure: (any Error)?

    init(reader: any SoupReader, usesIndexes: Bool = true) {
        self.reader = reader
        self.usesIndexes = usesIndexes
    }

    /// Keeps `error` when it is the first, and returns the text SQLite gets for it.
    func record(_ error: any Error) -> String {
        if failure == nil { failure = error }
        return "\(error)"
    }
}
