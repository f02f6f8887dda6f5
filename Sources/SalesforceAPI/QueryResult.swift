public import Determinism
public import LosslessJSON

/// One page of a SOQL query: `{"totalSize", "done", "nextRecordsUrl", "records"}`.
public struct QueryResult: Sendable, Hashable {
    /// Rows the whole query yields, repeated on every page.
    public var totalSize: Int
    /// Whether this is the last page.
    public var done: Bool
    /// The path of the next page, `nil` on the last page.
    public var nextRecordsURL: String?
    /// The records, exactly as the server sent them.
    public var records: [JSONValue]
    /// The server's clock when it answered (its `Date` header, whole seconds); `nil` when the
    /// answer had none or it was unreadable. A reSync reads it to know which seconds are settled.
    public var serverTime: WallTime?

    /// Creates a page.
    public init(
        totalSize: Int, done: Bool, nextRecordsURL: String?, records: [JSONValue], serverTime: WallTime? = nil
    ) {
        self.serverTime = serverTime
        self.totalSize = totalSize
        self.done = done
        self.nextRecordsURL = nextRecordsURL
        self.records = records
    }

    /// Reads a query response body; `nil` when it is not one.
    public init?(json: JSONValue) {
        guard let records = json["records"]?.array, let total = json["totalSize"]?.number?.int64Value else {
            return nil
        }
        self.records = records
        totalSize = Int(total)
        done = json["done"]?.bool ?? true
        nextRecordsURL = json["nextRecordsUrl"]?.string
    }
}
