import LosslessJSON
import Soups

/// Finds local records by the value of an id field: through the soup's index on it, or, when
/// the soup has none, through a map built by one scan of the soup for the wanted values.
struct LocalRecordFinder {
    let state: SoupState
    let soup: SoupCatalogEntry
    let idPath: String
    let isIndexed: Bool
    /// For an unindexed id field: every `_soupEntryId` per wanted value, ascending.
    var scanned: [JSONValue: [Int64]] = [:]

    init(state: SoupState, soup: SoupCatalogEntry, idPath: String, wanted: [JSONValue]) throws {
        self.state = state
        self.soup = soup
        self.idPath = idPath
        isIndexed = state.isIndexed(idPath, in: soup)
        guard !isIndexed, !wanted.isEmpty else { return }
        let wantedSet = Set(wanted)
        var scanned: [JSONValue: [Int64]] = [:]
        try state.forEachRecord(soup.soupId) { entryId, record in
            if let value = SoupPath.project(record, idPath), wantedSet.contains(value) {
                scanned[value, default: []].append(entryId)
            }
            return true
        }
        self.scanned = scanned
    }

    /// The lowest `_soupEntryId` of a record whose id field is `value`: one seek through the
    /// index (`SoupState.lowestEntryId(indexed:equalTo:in:)`). A sync-down page asks it for every
    /// record it fetched.
    func entryId(for value: JSONValue) throws -> Int64? {
        guard isIndexed else { return try allEntryIds(for: value).first }
        return try state.lowestEntryId(indexed: idPath, equalTo: value, in: soup)
    }

    /// Every `_soupEntryId` of a record whose id field is `value`, ascending.
    func allEntryIds(for value: JSONValue) throws -> [Int64] {
        guard !value.isNull else { return [] }
        guard isIndexed else { return scanned[value] ?? [] }
        return try state.entryIds(indexed: idPath, equalTo: value, in: soup)
    }

    /// Records that a record with id field `value` was just stored, for later records of the page.
    mutating func remember(_ value: JSONValue, _ entryId: Int64) {
        guard !isIndexed, !value.isNull, scanned[value]?.contains(entryId) != true else { return }
        scanned[value, default: []].append(entryId)
        scanned[value]?.sort()
    }
}
