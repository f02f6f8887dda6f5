import Determinism
package import EventJournal
import LMDBStore
import LosslessJSON

// The sync-down entries that change soups: fetched pages and ghost cleanings.
//
// MobileSync writes these entries; Soups folds them so that the records and the sync's
// watermark come from the one entry and commit together (DESIGN invariant 4). Soups must not
// import MobileSync (layers depend one way), so the kinds and header fields are read here by
// their names, as docs/mobilesync.md documents them. Everything the fold needs is in the entry:
// the soup, the sync id, the id field and the merge mode.
extension SoupProjection {
    /// Folds a sync-down entry into the soups; returns `false` for every other kind.
    ///
    /// - Parameter decoded: the page ``SoupEntryDecoder`` parsed, if any.
    func applyServerEntry(_ entry: JournalEntry, decoded: DecodedPage? = nil, in context: ProjectionContext) throws
        -> Bool
    {
        switch entry.kind.rawValue {
        case JournalEntry.Kind.syncDownPageFetched.rawValue:
            let state = SoupState(transaction: context.transaction, databases: SoupDatabases.of(context))
            try applyServerPage(entry, decoded: decoded, in: state)
            return true
        case JournalEntry.Kind.syncGhostsCleaned.rawValue:
            let state = SoupState(transaction: context.transaction, databases: SoupDatabases.of(context))
            try applyGhostCleaning(entry, in: state)
            return true
        default:
            return false
        }
    }

    /// Writes a fetched page's records under its merge mode.
    ///
    /// Each record is matched to a local one by the value of the id field: through the soup's
    /// index on that field when it has one, or by one scan of the soup per page when it has not
    /// (Mobile SDK requires the index; we accept either, docs/decisions/0314). A match keeps its
    /// `_soupEntryId`; when several local records share the value the lowest `_soupEntryId`
    /// wins, so the fold stays deterministic. Under LEAVE_IF_CHANGED a record whose match is
    /// dirty *now*, when the entry is applied, is skipped: an edit made while the sync ran is
    /// never overwritten; under OVERWRITE it is overwritten, as in Mobile SDK. A record that only
    /// the reSync's window brought is left alone under either mode (``RefetchRule``). Written
    /// records carry `__sync_id__`, clean flags, and the entry's time as `_soupLastModifiedDate`.
    /// How many records were left alone is noted for the page (``takeLeftAloneCount(ofPage:in:)``).
    ///
    /// A page the decoder parsed ahead is used when it kept the members this fold reads, or
    /// every member.
    private func applyServerPage(_ entry: JournalEntry, decoded: DecodedPage?, in state: SoupState) throws {
        let header = try ServerEntryHeader(entry)
        let rule = try RefetchRule(header)
        let leavesChanges = try header.leavesChanges()
        let handed = pageHandoff.take(sequence: entry.sequence, payload: entry.payload)
        let kept = try Self.foldedMembers(
            of: header, rule: rule, soupMembers: Self.spliceableMembers(ofSoup: header.soup, in: state))
        let page =
            if handed == nil, let decoded, decoded.keptMembers == nil || decoded.keptMembers == kept {
                decoded.page
            } else {
                try Self.fetchedPage(entry, handed: handed, keeping: kept)
            }
        let leftAlone: Int
        if entry.header[SyncHeader.childrenSoup] != nil {
            leftAlone = try applyParentChildrenPage(
                page.records, header, rule: rule, leavesChanges: leavesChanges, in: state)
        } else {
            leftAlone = try applyRecordPage(page, header, rule: rule, leavesChanges: leavesChanges, in: state)
        }
        var value: [UInt8] = []
        appendBigEndian(entry.sequence, to: &value)
        appendBigEndian(UInt64(leftAlone), to: &value)
        try state.transaction.put(state.databases.meta, key: SoupDatabases.pageLeftAloneKey, value: value)
    }

    /// A page's records, and where each stands in the payload when its bytes there are its
    /// serialization: as the engine that appended it handed them over, or else from the payload.
    ///
    /// Every fold splices the added fields into the bytes of a record whose bytes are its
    /// serialization (the engine's pages always are): the same bytes serializing gives, at a
    /// fraction of the cost, so a compaction's or a rebuild's fold of a page costs what the
    /// append's did. With `kept`, such a record keeps only those members, since the splice
    /// stores its bytes; every other record is parsed whole, since it is serialized.
    static func fetchedPage(
        _ entry: JournalEntry, handed: FetchedRecords?, keeping kept: [String]?
    ) throws -> FoldedPage {
        if let handed { return FoldedPage(records: handed.records, splices: handed.splices) }
        let parsed = try JSONValue.parse(entry.payload, recordingElementLayouts: (), keepingMembers: kept)
        guard var records = parsed.value.array else {
            throw SoupError(.notAnObject, "entry \(entry.sequence): the fetched records are not a JSON array")
        }
        let splices = parsed.layouts.map { RecordSplice($0, in: entry.payload) }
        guard kept != nil else { return FoldedPage(records: records, splices: splices) }
        for position in records.indices where splices[position] == nil {
            records[position] = try JSONValue(parsing: entry.payload[parsed.layouts[position].span])
        }
        return FoldedPage(records: records, splices: splices, trimmedSpans: parsed.layouts.map(\.span))
    }

    /// The members of a fetched record that the fold of a one-soup page reads, or `nil` when it
    /// must parse every member: a parent/children page, an unknown soup, or an index path that
    /// is empty or begins with `_` (its records are serialized whole, not spliced).
    ///
    /// They are the soup's (``spliceableMembers(ofSoup:in:)``), the id field's first component
    /// and the date field the reSync's window compares.
    static func foldedMembers(of header: ServerEntryHeader, rule: RefetchRule, soupMembers: [String]?) throws
        -> [String]?
    {
        guard header.entry.header[SyncHeader.childrenSoup] == nil, var members = soupMembers,
            let idFirst = SoupPath.components(try header.string(SyncHeader.idFieldName)).first
        else { return nil }
        members.append(idFirst)
        if let dateField = rule.dateField { members.append(dateField) }
        return members
    }

    /// The members the fold of any one-soup page of `soup` reads: the soup's
    /// (``SoupCatalogEntry/foldedRecordMembers``) and the external id fields of the creates
    /// being uploaded, which a fetched record may be the server copy of; `nil` when every
    /// member is read: an unknown soup, or an index path that is empty or begins with `_`.
    static func spliceableMembers(ofSoup name: String, in state: SoupState) throws -> [String]? {
        guard let soup = try state.catalogEntry(name) else { return nil }
        return spliceableMembers(of: soup, uploading: try state.uploadingCreates(soup.soupId).map(\.field))
    }

    /// The members the fold of any one-soup page of `soup` reads while creates with the
    /// external id fields `uploading` are being uploaded; see ``spliceableMembers(ofSoup:in:)``.
    static func spliceableMembers(of soup: SoupCatalogEntry, uploading: [String]) -> [String]? {
        guard !soup.indexesAddedFieldNames, var members = soup.foldedRecordMembers else { return nil }
        for path in uploading {
            guard let first = SoupPath.components(path).first else { return nil }
            members.append(first)
        }
        return members
    }

    /// A fetched page parsed ahead of its fold, knowing `soupMembers`
    /// (``spliceableMembers(ofSoup:in:)`` of each soup as the fold's state held them); `nil`
    /// for a page whose header or payload the fold must report itself.
    static func decodePage(_ entry: JournalEntry, soupMembers: [String: [String]]) -> DecodedPage? {
        do {
            let header = try ServerEntryHeader(entry)
            let kept = try foldedMembers(of: header, rule: RefetchRule(header), soupMembers: soupMembers[header.soup])
            return DecodedPage(page: try fetchedPage(entry, handed: nil, keeping: kept), keptMembers: kept)
        } catch {
            return nil
        }
    }

    /// How many records of the sync-down page `sequence` its fold left alone, taken by the
    /// sync-state projection, which folds each entry after this one in the same transaction; the
    /// note is removed, so the soups' state holds nothing a rebuild would not. `nil` when the
    /// page left no note (another sequence, or no soup fold before).
    package static func takeLeftAloneCount(ofPage sequence: UInt64, in context: ProjectionContext) throws -> Int? {
        let meta = SoupDatabases.of(context).meta
        let count = try context.transaction.withValue(meta, key: SoupDatabases.pageLeftAloneKey) { stored -> Int? in
            guard let stored, stored.count == 16, readBigEndian(stored.prefix(8)) == sequence else { return nil }
            return Int(readBigEndian(stored.suffix(8)) as UInt64)
        }
        if count != nil { try context.transaction.delete(meta, key: SoupDatabases.pageLeftAloneKey) }
        return count
    }

    /// Writes the records of a one-soup page; returns how many were fetched again unchanged.
    private func applyRecordPage(
        _ page: FoldedPage, _ header: ServerEntryHeader, rule: RefetchRule, leavesChanges: Bool, in state: SoupState
    ) throws -> Int {
        let records = page.records
        let entry = header.entry
        let idField = try header.string(SyncHeader.idFieldName)
        let soup = try state.requireSoup(header.soup)
        // Splicing the added fields into the record's bytes stores what serializing the cleaned
        // record would; indexing the record as fetched is the same only while no index reads
        // an added field.
        let splices = soup.indexesAddedFieldNames ? nil : page.splices
        let addedMembers = splices == nil ? nil : AddedMembers(syncId: header.syncId, at: entry.timestamp)
        let idComponents = SoupPath.components(idField)
        let idValues = records.map { SoupPath.project($0, components: idComponents) }
        var writer = try FetchedRecordWriter(
            state: state, soup: soup, idField: idField, rule: rule, wanted: idValues.compactMap { $0 },
            syncId: header.syncId, time: entry.timestamp)
        var nextEntryId = try state.meta(SoupDatabases.nextEntryIdKey, default: 1)
        var unchangedCount = 0
        for (position, record) in records.enumerated() {
            guard case .object = record else {
                throw SoupError(.notAnObject, "entry \(entry.sequence): a fetched record is not a JSON object")
            }
            let idValue = idValues[position]
            let match = try writer.match(record, idValue: idValue)
            let whole = page.isTrimmed(position) ? { try page.wholeRecord(position, in: entry.payload) } : nil
            if let match, try writer.isLeftAlone(record, match: match, whole: whole) {
                unchangedCount += 1
                continue
            }
            if leavesChanges, let match, try writer.isInDirtySet(match) { continue }
            var splicedBytes: ((Int64) -> [UInt8])?
            if let splice = splices?[position], let addedMembers {
                splicedBytes = { splice.bytes(in: entry.payload, adding: addedMembers.bytes(entryId: $0)[...]) }
            }
            // A record stored by serializing it must have all its members.
            let stored = splicedBytes == nil ? try whole?() ?? record : record
            try writer.store(
                stored, idValue: idValue, match: match, nextEntryId: &nextEntryId, splicedBytes: splicedBytes)
        }
        try state.putMeta(SoupDatabases.nextEntryIdKey, nextEntryId)
        return unchangedCount
    }

    /// Deletes the ghosts a cleaning names, re-checked against the soups as they are now.
    ///
    /// The payload lists `ghostIds`, the id-field values the engine found to be ghosts of the
    /// sync, and (decision 0319) `unownedGhostIds`, those of clean records that no sync down owns
    /// and that the server no longer has; for a target that writes several soups, `related`
    /// lists the same for each other soup (decision 0322). A record with a ghost's value is
    /// deleted only if it still belongs to this sync (`__sync_id__`) and is still clean; one with
    /// an unowned ghost's value only if it still has no `__sync_id__` and `__local__` is still
    /// `false`. So a record edited, or fetched by a sync down, between the engine's read and this
    /// append is kept (DESIGN invariant 5). A parent is kept too while a child of it is dirty (a
    /// related soup naming `parentIdFieldName`), so a child's change keeps its parent.
    private func applyGhostCleaning(_ entry: JournalEntry, in state: SoupState) throws {
        let header = try ServerEntryHeader(entry)
        let payload = try entry.jsonPayload()
        var keptParents: [(children: SoupCatalogEntry, parentIdField: String)] = []
        for related in payload["related"]?.array ?? [] {
            guard let soupName = related["soup"]?.string, let idField = related["idFieldName"]?.string else {
                throw SoupError(.storage, "entry \(entry.sequence): a related ghost cleaning lacks soup or idFieldName")
            }
            let soup = try state.requireSoup(soupName)
            try removeGhosts(related, of: header.syncId, in: soup, idField: idField, state)
            if let parentIdField = related["parentIdFieldName"]?.string { keptParents.append((soup, parentIdField)) }
        }
        let soup = try state.requireSoup(header.soup)
        let idField = try header.string(SyncHeader.idFieldName)
        let candidates = (payload["ghostIds"]?.array ?? []) + (payload["unownedGhostIds"]?.array ?? [])
        let childFinders = try keptParents.map { children, parentIdField in
            try LocalRecordFinder(state: state, soup: children, idPath: parentIdField, wanted: candidates)
        }
        try removeGhosts(payload, of: header.syncId, in: soup, idField: idField, state) { ghost in
            try childFinders.contains { finder in
                try finder.allEntryIds(for: ghost).contains { try state.isInDirtySet(finder.soup.soupId, $0) }
            }
        }
    }

    /// Deletes the records of `soup` that `lists` (`ghostIds`, `unownedGhostIds`) name and that
    /// are still ghosts, unless `isKept` says otherwise for that id.
    private func removeGhosts(
        _ lists: JSONValue, of syncId: Int64, in soup: SoupCatalogEntry, idField: String, _ state: SoupState,
        isKept: (JSONValue) throws -> Bool = { _ in false }
    ) throws {
        let ghostIds = lists["ghostIds"]?.array ?? []
        let unownedIds = lists["unownedGhostIds"]?.array ?? []
        let finder = try LocalRecordFinder(state: state, soup: soup, idPath: idField, wanted: ghostIds + unownedIds)
        func remove(_ ids: [JSONValue], where isStillGhost: (JSONValue) -> Bool) throws {
            for ghost in ids where try !isKept(ghost) {
                for entryId in try finder.allEntryIds(for: ghost) {
                    guard let record = try state.record(soup.soupId, entryId), isStillGhost(record) else { continue }
                    try state.removeRecord(soup.soupId, entryId)
                }
            }
        }
        try remove(ghostIds) { GhostSet.isOwnedCandidate($0, syncId: syncId) }
        try remove(unownedIds) { GhostSet.isUnownedCandidate($0, idFieldName: idField) }
    }

    /// The fields a sync down adds to every record it stores: Mobile Sync's clean flags,
    /// `__sync_id__` (only for a sync id ≥ 0, as Mobile SDK does), and the store's bookkeeping
    /// fields. Every name begins with `_`, which ``SerializedPage`` relies on.
    static func addedFields(syncId: Int64, entryId: Int64, at time: WallTime) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [
            LocalFlags.local: false, LocalFlags.locallyCreated: false, LocalFlags.locallyUpdated: false,
            LocalFlags.locallyDeleted: false, LocalFlags.lastError: .null,
            SoupStore.entryIdField: .number(JSONNumber(entryId)),
            SoupStore.lastModifiedDateField: .number(JSONNumber(time.millisecondsSinceEpoch)),
        ]
        if syncId >= 0 { fields[LocalFlags.syncId] = .number(JSONNumber(syncId)) }
        return fields
    }
}

/// A fetched page parsed ahead of its fold, with the members it kept of each spliced record
/// (`nil`: every member), so the fold uses it only while it reads those.
struct DecodedPage: Sendable {
    var page: FoldedPage
    var keptMembers: [String]?
}

/// A fetched page's records as the fold reads them, and where each stands in the payload.
struct FoldedPage: Sendable {
    /// The records; those with a splice may hold only the members the fold reads.
    var records: [JSONValue]
    /// Where each record's added fields go, for those whose bytes are their serialization.
    var splices: [RecordSplice?]
    /// Each record's bytes in the payload, when some records hold only some members.
    var trimmedSpans: [Range<Int>]? = nil

    /// Whether the record at `position` may hold only some of its members: a spliced record
    /// of a page parsed for what the fold reads. Every other record is whole.
    func isTrimmed(_ position: Int) -> Bool {
        trimmedSpans != nil && splices[position] != nil
    }

    /// The record at `position` with every member, parsed from its bytes in `payload`.
    func wholeRecord(_ position: Int, in payload: [UInt8]) throws -> JSONValue {
        guard let trimmedSpans else { return records[position] }
        return try JSONValue(parsing: payload[trimmedSpans[position]])
    }
}

/// The added fields of a page's records as serialized members (no braces), made once per page:
/// only `_soupEntryId` differs between the page's records.
private struct AddedMembers {
    /// The members up to the entry id's value, and after it.
    private let head: [UInt8]
    private let tail: [UInt8]

    /// `nil` if the serialization does not hold `"_soupEntryId":0` (it always does); the fold
    /// then serializes each record whole.
    init?(syncId: Int64, at time: WallTime) {
        let bytes = JSONValue.object(SoupProjection.addedFields(syncId: syncId, entryId: 0, at: time)).serialized()
        let members = Array(bytes.dropFirst().dropLast())
        // The key is unique, and no other member's value is a string that could contain it.
        let marker = JSONValue.string(SoupStore.entryIdField).serialized() + Array(":0".utf8)
        guard let range = members.firstRange(of: marker) else { return nil }
        head = Array(members[..<(range.upperBound - 1)])
        tail = Array(members[range.upperBound...])
    }

    func bytes(entryId: Int64) -> [UInt8] {
        head + Array(String(entryId).utf8) + tail
    }
}

/// Typed reads of a sync-down entry's header, failing with the entry's sequence.
struct ServerEntryHeader {
    let entry: JournalEntry
    let soup: String
    let syncId: Int64

    init(_ entry: JournalEntry) throws {
        self.entry = entry
        guard let soup = entry.header[SyncHeader.soup]?.string,
            let syncId = entry.header[SyncHeader.syncId]?.integer
        else {
            throw SoupError(.storage, "entry \(entry.sequence) of kind \(entry.kind) lacks its soup or syncId header")
        }
        self.soup = soup
        self.syncId = syncId
    }

    func string(_ name: String) throws -> String {
        guard let value = entry.header[name]?.string else {
            throw SoupError(.storage, "entry \(entry.sequence) of kind \(entry.kind) lacks its \(name) header")
        }
        return value
    }

    /// The header `name`, or `nil` when the entry has none; a value that is not a string throws.
    func optionalString(_ name: String) throws -> String? {
        guard entry.header[name] != nil else { return nil }
        return try string(name)
    }

    /// Whether the entry's merge mode is LEAVE_IF_CHANGED (otherwise it is OVERWRITE).
    func leavesChanges() throws -> Bool {
        let mode = try string(SyncHeader.mergeMode)
        guard mode == SyncHeader.leaveIfChanged || mode == SyncHeader.overwrite else {
            throw SoupError(.storage, "entry \(entry.sequence) has an unknown merge mode '\(mode)'")
        }
        return mode == SyncHeader.leaveIfChanged
    }
}
