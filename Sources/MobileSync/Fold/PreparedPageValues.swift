import LosslessJSON
import Soups

/// The stored values of a sync-down page's records, made before the fold decides the records
/// one by one, two halves at once (decision 0034).
///
/// A record's stored value is its bytes with the added fields spliced in, `_soupEntryId`
/// among them, compressed with its soup's dictionary. The fold decides each record's id in
/// turn, with reads between, so the values are made for the ids the records are predicted to
/// get: the local record the id field matches now, else the id an earlier record of the page
/// with the same id field value gets, else the next new id in page order. A value is used only
/// for a record stored with the id it was made for (and the dictionary it names still current,
/// `SoupState.storeRecord`); any other record is compressed as it is stored, as before. The
/// prediction decides nothing, and what is stored is what compressing at the put would store.
struct PreparedPageValues {
    /// A record's bytes and stored value, made for the `_soupEntryId` it names.
    struct Prepared {
        var entryId: Int64
        var bytes: [UInt8]
        var value: PreparedRecordValue
    }

    /// One per record of the page, `nil` for a record nothing was made for.
    private var prepared: [Prepared?]

    /// Nothing made: each record is compressed as it is stored.
    static let none = PreparedPageValues(prepared: [])

    private init(prepared: [Prepared?]) {
        self.prepared = prepared
    }

    /// What was made for the record at `position`, for the id it was predicted to get:
    /// `FetchedRecordWriter.store` uses it only when the record gets that id.
    func prepared(_ position: Int) -> Prepared? {
        position < prepared.count ? prepared[position] : nil
    }

    /// Makes the values of a page's spliced records, when the page has at least
    /// `SoupState.valuesInHalvesCountMin` records; ``none`` otherwise.
    ///
    /// - Parameters:
    ///   - records: the page's records, in order.
    ///   - idValues: each record's id field value.
    ///   - splice: the bytes of the record at a position given its `_soupEntryId`, or `nil`
    ///     for a record stored by serializing it.
    ///   - writer: the page's writer, before its first record is stored.
    ///   - nextEntryId: the id the page's first new record gets.
    /// - Throws: what reading the local matches or the soup's dictionary throws.
    static func make(
        _ records: [JSONValue], idValues: [JSONValue?], splice: (Int, Int64) -> [UInt8]?,
        writer: FetchedRecordWriter, nextEntryId: UInt64
    ) throws -> PreparedPageValues {
        // Without a dictionary a value is the record's bytes: nothing to make ahead.
        guard records.count >= SoupState.valuesInHalvesCountMin,
            try writer.state.currentDictionaryId(writer.soup.soupId) != nil
        else { return .none }
        var next = Int64(nextEntryId)
        var earlier: [JSONValue: Int64] = [:]
        var positions: [(position: Int, entryId: Int64)] = []
        var jsons: [[UInt8]] = []
        for (position, record) in records.enumerated() {
            guard case .object = record else { break }
            let idValue = idValues[position].flatMap { $0.isNull ? nil : $0 }
            let entryId: Int64
            if let match = try writer.match(record, idValue: idValue) {
                entryId = match
            } else if let idValue, let id = earlier[idValue] {
                entryId = id
            } else {
                entryId = next
                next += 1
            }
            if let idValue, earlier[idValue] == nil { earlier[idValue] = entryId }
            guard let bytes = splice(position, entryId) else { continue }
            positions.append((position, entryId))
            jsons.append(bytes)
        }
        guard !positions.isEmpty else { return .none }
        let values = try writer.state.preparedValues(jsons, soupId: writer.soup.soupId)
        var prepared = [Prepared?](repeating: nil, count: records.count)
        for (index, made) in positions.enumerated() {
            prepared[made.position] = Prepared(entryId: made.entryId, bytes: jsons[index], value: values[index])
        }
        return PreparedPageValues(prepared: prepared)
    }
}
