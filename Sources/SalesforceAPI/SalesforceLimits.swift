/// Salesforce's documented request limits, shared by the client (which refuses requests over
/// them before sending) and the simulator (which answers them as Salesforce does).
public enum SalesforceLimits {
    /// Sub-requests in one `POST /composite` call.
    public static let compositeSubrequestCountMax = 25
    /// Records (or ids) in one sObject Collections create, update, upsert or delete.
    public static let collectionRecordCountMax = 200
    /// Ids in one sObject Collections retrieve sent with POST.
    public static let collectionRetrieveIDCountMax = 2000
    /// The smallest `batchSize` Salesforce honours in `Sforce-Query-Options`.
    public static let queryBatchSizeMin = 200
    /// The largest `batchSize`, also the default page size.
    public static let queryBatchSizeMax = 2000
    /// The largest SOQL `OFFSET`.
    public static let queryOffsetMax = 2000
    /// The largest SOSL `LIMIT`, also its default.
    public static let searchLimitMax = 2000
    /// The longest request URI, in bytes; longer answers 414.
    public static let uriLengthMax = 16384
}
