import Determinism
import LosslessJSON
import Soups

/// Stores the records of a sync-down page in one soup: each fetched record is matched to a
/// local one by its id field and written over it, or stored as a new record.
///
/// A match is the local record with the record's id field value (the lowest `_soupEntryId`
/// when several have it), or else the local create whose upsert the record is the server copy
/// of (decision 0353). Stored records are the server's JSON plus ``AddedMembers/fields(syncId:entryId:at:)``.
/// A record that only a reSync's window brought, which the match already holds with the same
/// modification date, is left alone by the caller (``RefetchRule``).
/// A page of a parent/children sync uses one writer per soup, sharing `next-entry-id`.
struct FetchedRecordWriter {
    let state: SoupState
    let soup: SoupCatalogEntry
    private let idComponents: [String]
    private let syncId: Int64
    private let time: WallTime
    private let newRecordPlacement: SoupState.RecordPlacement
    private var finder: LocalRecordFinder
    private let uploading: [UploadingCreate]
    private let rule: RefetchRule

    /// Prepares to store records whose id field values are among `wanted`.
    ///
    /// - Parameter rule: which fetched records are left alone, with the date field of this soup.
    init(
        state: SoupState, soup: SoupCatalogEntry, idField: String, rule: RefetchRule, wanted: [JSONValue],
        syncId: Int64, time: WallTime
    ) throws {
        self.state = state
        self.soup = soup
        self.rule = rule
        idComponents = SoupPath.components(idField)
        self.syncId = syncId
        self.time = time
        newRecordPlacement = try state.newRecordPlacement(in: soup)
        finder = try LocalRecordFinder(state: state, soup: soup, idPath: idField, wanted: wanted)
        uploading = try UploadingCreate.all(in: soup, state)
    }

    /// The value of the id field in `record`, if any.
    func idValue(of record: JSONValue) -> JSONValue? {
        SoupPath.project(record, components: idComponents)
    }

    /// The `_soupEntryId` of the local record `record` is fetched for, or `nil` for a new one.
    func match(_ record: JSONValue, idValue: JSONValue?) throws -> Int64? {
        if let match = try idValue.flatMap({ try finder.entryId(for: $0) }) { return match }
        // The server copy of a create whose upsert reached the server but whose outcome is not
        // journaled yet: it is that local record, not a new one (decision 0353).
        if let create = uploading.first(where: { $0.isServerCopy(record) }),
            try state.record(soup.soupId, create.entryId) != nil
        {
            return create.entryId
        }
        return nil
    }

    /// Whether the page leaves the local record `match` as it is rather than write `record`
    /// (``RefetchRule/leavesAlone(_:as:syncId:whole:)``); `whole` gives `record` with every
    /// member when it holds only some.
    func isLeftAlone(_ record: JSONValue, match: Int64, whole: (() throws -> JSONValue)? = nil) throws -> Bool {
        guard rule.appliesToSomeDate, let stored = try state.record(soup.soupId, match) else { return false }
        return try rule.leavesAlone(record, as: stored, syncId: syncId, whole: whole)
    }

    /// Whether the local record `entryId` is dirty now.
    func isInDirtySet(_ entryId: Int64) throws -> Bool {
        try state.isInDirtySet(soup.soupId, entryId)
    }

    /// Whether writing over the local record `match` overwrites local changes; asked only of a
    /// traced fold (`SoupState.isTraced(_:)`), whose history says so, and `false` otherwise.
    func overwritesLocalChange(_ match: Int64?) throws -> Bool {
        guard state.isTraced(soup), let match else { return false }
        return try isInDirtySet(match)
    }

    /// Says, in a traced fold, what the page did to the local record `entryId` and why.
    /// - Parameter idValue: the fetched record's id field value.
    func explain(_ entryId: Int64, _ decision: FoldDecision, idValue: JSONValue?) throws {
        guard state.isTraced(soup) else { return }
        try state.explain(entryId, in: soup, decision.description, serverId: idValue?.string)
    }

    /// Stores `record` over `match`, or as a new record taking `nextEntryId`.
    ///
    /// - Parameters:
    ///   - splicedBytes: the stored record's serialization, given its entry id, when the caller
    ///     can make it without serializing the record (see ``SerializedPage``).
    ///   - prepared: those bytes and their stored value made ahead (``PreparedPageValues``),
    ///     used when made for the id the record gets.
    /// - Returns: the stored record's `_soupEntryId`.
    @discardableResult
    mutating func store(
        _ record: JSONValue, idValue: JSONValue?, match: Int64?, nextEntryId: inout UInt64,
        splicedBytes: ((Int64) -> [UInt8])? = nil, prepared: PreparedPageValues.Prepared? = nil
    ) throws -> Int64 {
        let entryId = match ?? Int64(nextEntryId)
        // A new record's id is the next one: its keys go after every key of its soup.
        let placement = match == nil ? newRecordPlacement : .anywhere
        if match == nil { nextEntryId += 1 }
        if splicedBytes != nil, let prepared, prepared.entryId == entryId {
            try state.storeRecord(
                record, bytes: prepared.bytes, lastModifiedDate: time.millisecondsSinceEpoch, entryId: entryId,
                in: soup, placement: placement, prepared: prepared.value)
        } else if let splicedBytes {
            try state.storeRecord(
                record, bytes: splicedBytes(entryId), lastModifiedDate: time.millisecondsSinceEpoch, entryId: entryId,
                in: soup, placement: placement)
        } else {
            let added = AddedMembers.fields(syncId: syncId, entryId: entryId, at: time)
            let stored = record.object.map { JSONValue.object($0.merging(added) { $1 }) } ?? record
            try state.storeRecord(stored, entryId: entryId, in: soup, placement: placement)
        }
        if let idValue { finder.remember(idValue, entryId) }
        return entryId
    }
}
