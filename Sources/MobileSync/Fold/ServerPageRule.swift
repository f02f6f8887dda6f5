import Determinism
package import EventJournal
import LosslessJSON
package import Soups

/// The fold of `sync.down.page` entries: writes a fetched page's records into the soups under
/// its merge mode, and applies the page to its sync's state, in the soup fold of the append.
///
/// The records and the sync's watermark come from the one entry and commit together (DESIGN
/// invariant 4). The page is read by its one parser, ``SyncDownPage/init(journalEntry:)``;
/// everything the fold needs is in the entry: the soup, the sync id, the id field and the merge
/// mode. How many records the fold left alone goes into the sync's state here
/// (``SyncStateProjection/applyPage(_:leftAlone:in:)``) and to the engine that appended the page
/// (``FetchedRecords/receipt``).
package struct ServerPageRule: SoupFoldRule {
    /// `sync.down.page`.
    package var kinds: Set<JournalEntry.Kind> {
        [.syncDownPageFetched]
    }
    /// Where the engine appending a fetched page leaves its parsed records.
    let handoff = EntryHandoff<FetchedRecords>()

    /// Creates the rule.
    package init() {}

    /// Writes a fetched page's records under its merge mode.
    ///
    /// Each record is matched to a local one by the value of the id field: through the soup's
    /// index on that field when it has one, or by one scan of the soup per page when it has not
    /// (Mobile SDK requires the index; we accept either, docs/decisions/0314). A match keeps its
    /// `_soupEntryId`; when several local records share the value the lowest `_soupEntryId`
    /// wins, so the fold stays deterministic. Under LEAVE_IF_CHANGED a record whose match is
    /// dirty *now*, when the entry is applied, is skipped: an edit made while the sync ran is
    /// never overwritten; under OVERWRITE it is overwritten, as in Mobile SDK; under MERGE_FIELDS it
    /// is merged field by field (``FetchedRecordWriter/mergeFields(_:into:syncId:entry:idValue:)``). A record that only
    /// the reSync's window brought is left alone under either mode (``RefetchRule``). Written
    /// records carry `__sync_id__`, clean flags, and the entry's time as `_soupLastModifiedDate`.
    ///
    /// A page the decoder parsed ahead is used when it kept the members this fold reads, or
    /// every member.
    /// - Throws: `SoupError` for a malformed page or an unknown soup; the append is refused.
    package func apply(
        _ entry: JournalEntry, decoded: (any Sendable)?, to state: SoupState, in context: ProjectionContext
    ) throws {
        let page = try Self.page(of: entry)
        let rule = try RefetchRule(page, entry)
        let handed = handoff.take(sequence: entry.sequence, payload: entry.payload)
        let kept = Self.foldedMembers(
            of: page, rule: rule, soupMembers: try Self.spliceableMembers(ofSoup: page.soupName, in: state))
        let folded =
            if handed == nil, let decoded = decoded as? DecodedPage,
                decoded.keptMembers == nil || decoded.keptMembers == kept
            {
                decoded.page
            } else {
                try Self.fetchedPage(entry, handed: handed, keeping: kept)
            }
        let leftAlone =
            if page.children != nil {
                try applyParentChildrenPage(folded.records, page, entry, rule: rule, in: state)
            } else {
                try applyRecordPage(folded, page, entry, rule: rule, in: state)
            }
        handed?.receipt.record(leftAlone: leftAlone)
        try SyncStateProjection.applyPage(page, leftAlone: leftAlone, in: context)
    }

    /// The soup and, for a parent/children page, the children's soup.
    package func soupNames(touchedBy entry: JournalEntry) -> [String] {
        [entry.header[SyncHeader.soup]?.string, entry.header[SyncHeader.childrenSoup]?.string].compactMap { $0 }
    }

    /// A decoder that parses fetched pages ahead, trimmed to what each soup's fold reads.
    package func makeDecoder(in state: SoupState) throws -> (any SoupFoldRuleDecoder)? {
        var members: [String: [String]] = [:]
        for name in try state.soupNames() {
            members[name] = try Self.spliceableMembers(ofSoup: name, in: state)
        }
        return PageDecoder(soupMembers: members)
    }

    /// The page an entry holds, read by its one parser; a malformed page is the soup fold's
    /// `SoupError`, as every entry the soups refuse.
    static func page(of entry: JournalEntry) throws(SoupError) -> SyncDownPage {
        do {
            return try SyncDownPage(journalEntry: entry)
        } catch {
            throw SoupError(.storage, error.message, cause: error)
        }
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
    static func foldedMembers(of page: SyncDownPage, rule: RefetchRule, soupMembers: [String]?) -> [String]? {
        guard page.children == nil, var members = soupMembers,
            let idFirst = SoupPath.components(page.idFieldName).first
        else { return nil }
        members.append(idFirst)
        if let dateField = rule.dateField { members.append(dateField) }
        return members
    }

    /// The members the fold of any one-soup page of `soup` reads: the soup's
    /// (`SoupCatalogEntry.foldedRecordMembers`) and the external id fields of the creates
    /// being uploaded, which a fetched record may be the server copy of; `nil` when every
    /// member is read: an unknown soup, or an index path that is empty or begins with `_`.
    static func spliceableMembers(ofSoup name: String, in state: SoupState) throws -> [String]? {
        guard let soup = try state.catalogEntry(name) else { return nil }
        return spliceableMembers(of: soup, uploading: try UploadingCreate.all(in: soup, state).map(\.field))
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

    /// Writes the records of a one-soup page; returns how many were fetched again unchanged.
    private func applyRecordPage(
        _ folded: FoldedPage, _ page: SyncDownPage, _ entry: JournalEntry, rule: RefetchRule, in state: SoupState
    ) throws -> Int {
        let records = folded.records
        let soup = try state.requireSoup(page.soupName)
        // Splicing the added fields into the record's bytes stores what serializing the cleaned
        // record would; indexing the record as fetched is the same only while no index reads
        // an added field.
        let splices = soup.indexesAddedFieldNames ? nil : folded.splices
        let addedMembers = splices == nil ? nil : AddedMembers(syncId: page.syncId, at: entry.timestamp)
        let idComponents = SoupPath.components(page.idFieldName)
        let idValues = records.map { SoupPath.project($0, components: idComponents) }
        var writer = try FetchedRecordWriter(
            state: state, soup: soup, idField: page.idFieldName, rule: rule, wanted: idValues.compactMap { $0 },
            syncId: page.syncId, time: entry.timestamp)
        var nextEntryId = try state.nextEntryId()
        // The bytes of the record at a position given its id, for those stored by splicing.
        func splicedBytes(at position: Int) -> ((Int64) -> [UInt8])? {
            guard let splice = splices?[position], let addedMembers else { return nil }
            return { splice.bytes(in: entry.payload, adding: addedMembers.bytes(entryId: $0)[...]) }
        }
        let prepared = try PreparedPageValues.make(
            records, idValues: idValues, splice: { splicedBytes(at: $0)?($1) }, writer: writer,
            nextEntryId: nextEntryId)
        var unchangedCount = 0
        for (position, record) in records.enumerated() {
            guard case .object = record else {
                throw SoupError(.notAnObject, "entry \(entry.sequence): a fetched record is not a JSON object")
            }
            let idValue = idValues[position]
            let match = try writer.match(record, idValue: idValue)
            let whole = folded.isTrimmed(position) ? { try folded.wholeRecord(position, in: entry.payload) } : nil
            if let match, try writer.isLeftAlone(record, match: match, whole: whole) {
                unchangedCount += 1
                try writer.explain(match, .fetchedAgainUnchanged(syncId: page.syncId), idValue: idValue)
                continue
            }
            if page.mergeMode == .leaveIfChanged, let match, try writer.isInDirtySet(match) {
                try writer.explain(match, .keptLocalChange(syncId: page.syncId), idValue: idValue)
                continue
            }
            if page.mergeMode == .mergeFields, let match, try writer.isInDirtySet(match),
                try writer.mergeFields(
                    try whole?() ?? record, into: match, syncId: page.syncId, entry: entry, idValue: idValue)
            {
                continue
            }
            let overwrites = try page.mergeMode != .mergeFields && writer.overwritesLocalChange(match)
            let spliced = splicedBytes(at: position)
            // A record stored by serializing it must have all its members.
            let stored = spliced == nil ? try whole?() ?? record : record
            let entryId = try writer.store(
                stored, idValue: idValue, match: match, nextEntryId: &nextEntryId, splicedBytes: spliced,
                prepared: prepared.prepared(position))
            try writer.explain(entryId, .fetched(page.syncId, overwriting: overwrites), idValue: idValue)
        }
        try state.putNextEntryId(nextEntryId)
        return unchangedCount
    }
}
