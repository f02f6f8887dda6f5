public import Soups

/// One soup of a SmartStore database: its name, its index specs and its records.
public struct SmartStoreSoup: Hashable, Sendable {
    /// The soup's name (`soup_attrs.soupName`).
    public var name: String
    /// The soup's index specs in declaration order (`soup_index_map`).
    public var indexSpecs: [IndexSpec]
    /// The soup's records in `_soupEntryId` order.
    public var records: [SmartStoreRecord]

    /// Creates a soup.
    /// - Parameters:
    ///   - name: the soup's name.
    ///   - indexSpecs: its index specs, in order.
    ///   - records: its records, in `_soupEntryId` order.
    public init(name: String, indexSpecs: [IndexSpec], records: [SmartStoreRecord]) {
        self.name = name
        self.indexSpecs = indexSpecs
        self.records = records
    }
}
