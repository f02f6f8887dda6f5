public import LosslessJSON

/// A store the soup workload runs on: the journal's soups under each configuration, SQLite and
/// SQLCipher in SmartStore's layout.
///
/// Each operation does what an app's call does, so the figures compare what users wait for: a
/// lookup returns the record parsed, a range page the records parsed.
public protocol SoupWorkloadStore {
    /// Stores `records` in one durable transaction.
    func insert(_ records: [JSONValue]) throws

    /// The record whose `Id` is `id`, if any.
    func lookup(id: String) throws -> JSONValue?

    /// ``SmartStoreLayout/rangePageSize`` records with `AnnualRevenue ≥ low`, ascending.
    func rangePage(from low: Int64) throws -> [JSONValue]

    /// The bytes the store takes on disk now.
    func storeBytes() throws -> Int
}
