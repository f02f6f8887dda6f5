public import LosslessJSON

/// One record of a SmartStore soup, as the database holds it.
public struct SmartStoreRecord: Hashable, Sendable {
    /// The row's `id`: the record's `_soupEntryId`, kept by the import.
    public var entryId: Int64
    /// The row's `created` column, epoch milliseconds: the record's `_soupCreatedDate`.
    public var createdDate: Int64
    /// The row's `lastModified` column, epoch milliseconds: the record's `_soupLastModifiedDate`.
    public var lastModifiedDate: Int64
    /// The row's `soup` column, with `_soupEntryId` and `_soupLastModifiedDate` set from the
    /// `id` and `lastModified` columns, as SmartStore answers it.
    public var json: JSONValue

    /// Creates a record.
    /// - Parameters:
    ///   - entryId: the `_soupEntryId`.
    ///   - createdDate: the creation date, epoch milliseconds.
    ///   - lastModifiedDate: the last modification date, epoch milliseconds.
    ///   - json: the record, holding `entryId` and `lastModifiedDate` in its bookkeeping fields.
    public init(entryId: Int64, createdDate: Int64, lastModifiedDate: Int64, json: JSONValue) {
        self.entryId = entryId
        self.createdDate = createdDate
        self.lastModifiedDate = lastModifiedDate
        self.json = json
    }
}
