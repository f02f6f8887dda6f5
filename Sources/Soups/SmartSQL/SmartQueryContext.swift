/// What the soup tables of one smart query execution share: the reader of its read
/// transaction, and the first error a table met.
///
/// SQLite turns a callback's failure into text; the engine rethrows the error kept here
/// instead, so a storage failure stays ``SoupError/Code/storage`` with its cause.
final class SmartQueryContext {
    let reader: any SoupReader
    private(set) var failure: (any Error)?

    init(reader: any SoupReader) {
        self.reader = reader
    }

    /// Keeps `error` when it is the first, and returns the text SQLite gets for it.
    func record(_ error: any Error) -> String {
        if failure == nil { failure = error }
        return "\(error)"
    }
}
