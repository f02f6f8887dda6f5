/// A record's value for `soups.records`, made before the fold stores the record
/// (``SoupState/preparedValues(_:soupId:halvesCountMin:)``, decision 0034).
///
/// It names the dictionary it was made with, so a store checks that this is still the soup's
/// current one: a value is only ever stored as compressing the record then would store it.
package struct PreparedRecordValue: Sendable, Equatable {
    /// The id of the soup's dictionary the value was compressed with; `nil` when the soup had none.
    package let dictionaryId: UInt32?
    /// The value to store: the record's JSON, or its compressed form (`StoredRecordValue`).
    package let value: [UInt8]

    /// A value made for the soup's dictionary `dictionaryId`.
    /// - Parameters:
    ///   - dictionaryId: the id of the dictionary current when it was made, or `nil` for none.
    ///   - value: the value to store.
    package init(dictionaryId: UInt32?, value: [UInt8]) {
        self.dictionaryId = dictionaryId
        self.value = value
    }
}
