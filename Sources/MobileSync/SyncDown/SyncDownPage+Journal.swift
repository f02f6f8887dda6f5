package import EventJournal
import LosslessJSON
import Soups

extension SyncDownPage {
    /// The entry to append: kind `sync.down.page`, the bookkeeping in typed header fields, the
    /// records as the JSON payload, unchanged.
    package var journalDraft: JournalEntry.Draft {
        JournalEntry.Draft(kind: .syncDownPageFetched, header: journalHeader, payload: records, payloadFormat: .json)
    }

    /// ``journalDraft`` for a page whose `records` the engine serialized from parsed values:
    /// the journal need not parse megabytes again to check they are JSON.
    var serializedJournalDraft: JournalEntry.Draft {
        JournalEntry.Draft(kind: .syncDownPageFetched, header: journalHeader, serializedJSON: records)
    }

    private var journalHeader: [String: JournalEntry.HeaderValue] {
        var header: [String: JournalEntry.HeaderValue] = [
            SyncHeader.syncId: .integer(syncId), SyncHeader.soup: .string(soupName),
            SyncHeader.page: .integer(pageNumber), SyncHeader.totalSize: .integer(totalSize),
            SyncHeader.maxTimeStamp: .integer(maxTimeStamp),
            SyncHeader.advancesWatermark: .bool(advancesWatermark),
            SyncHeader.idFieldName: .string(idFieldName), SyncHeader.mergeMode: .string(mergeMode.rawValue),
        ]
        if let modificationDateFieldName {
            header[SyncHeader.modificationDateFieldName] = .string(modificationDateFieldName)
        }
        // Always written, so the soup fold tells this rule's pages from decision 0321's.
        header[SyncHeader.previousWatermark] = .integer(reSyncWindow?.previousWatermark ?? -1)
        if recordCount >= 0 { header[SyncHeader.recordCount] = .integer(recordCount) }
        if let reSyncWindow {
            header[SyncHeader.modifiedSince] = .integer(reSyncWindow.modifiedSince)
            header[SyncHeader.reSyncOverlapSeconds] = .integer(Int64(reSyncWindow.overlapSeconds))
        }
        if let children {
            header[SyncHeader.childrenSoup] = .string(children.soupName)
            header[SyncHeader.childrenRelationship] = .string(children.relationshipName)
            header[SyncHeader.childIdFieldName] = .string(children.idFieldName)
            header[SyncHeader.childModificationDateFieldName] = .string(children.modificationDateFieldName)
            header[SyncHeader.childParentIdFieldName] = .string(children.parentIdFieldName)
        }
        return header
    }

    /// Reads a page back from its entry.
    ///
    /// A parent/children page also carries `childrenSoup`, `childrenRelationship`,
    /// `childIdFieldName`, `childModificationDateFieldName` and `childParentIdFieldName`: all or none.
    ///
    /// The `idFieldName` and `mergeMode` header fields are required: the soup projection folds
    /// the page from the entry alone, so an entry without them could not be replayed.
    /// `modificationDateFieldName`, `modifiedSince` and `reSyncOverlapSeconds` are optional:
    /// entries journaled before decision 0321 lack them; `previousWatermark` came with decision
    /// 0325 (read as -1 when absent).
    ///
    /// - Throws: ``SyncError/Code/malformedEntry`` when the entry is of another kind or a header
    ///   field is missing or mistyped.
    package init(journalEntry entry: JournalEntry) throws(SyncError) {
        guard entry.kind == .syncDownPageFetched else {
            throw SyncError(
                .malformedEntry,
                "Entry \(entry.sequence) is \(entry.kind), not \(JournalEntry.Kind.syncDownPageFetched).")
        }
        let header = EntryHeader(entry)
        let modeText = try header.string(SyncHeader.mergeMode)
        let window = try Self.window(header)
        guard let mode = MergeMode(rawValue: modeText) else {
            throw SyncError(
                .malformedEntry, "Entry \(entry.sequence) (\(entry.kind)): unknown mergeMode \"\(modeText)\".")
        }
        var children: SyncDownPageDestination.Children?
        if entry.header[SyncHeader.childrenSoup] != nil {
            children = SyncDownPageDestination.Children(
                soupName: try header.string(SyncHeader.childrenSoup),
                relationshipName: try header.string(SyncHeader.childrenRelationship),
                idFieldName: try header.string(SyncHeader.childIdFieldName),
                modificationDateFieldName: try header.string(SyncHeader.childModificationDateFieldName),
                parentIdFieldName: try header.string(SyncHeader.childParentIdFieldName))
        }
        self.init(
            syncId: try header.integer(SyncHeader.syncId), soupName: try header.string(SyncHeader.soup),
            pageNumber: try header.integer(SyncHeader.page), records: entry.payload,
            totalSize: try header.integer(SyncHeader.totalSize),
            maxTimeStamp: try header.integer(SyncHeader.maxTimeStamp),
            advancesWatermark: try header.bool(SyncHeader.advancesWatermark),
            idFieldName: try header.string(SyncHeader.idFieldName), mergeMode: mode,
            modificationDateFieldName: try header.optionalString(SyncHeader.modificationDateFieldName),
            reSyncWindow: window, children: children,
            recordCount: try header.optionalInteger(SyncHeader.recordCount) ?? -1)
    }

    /// The `previousWatermark` header of a page entry: `nil` for a page journaled before
    /// decision 0325, which folds by decision 0321's rule (``RefetchRule``); `-1` for a page of a
    /// full sync.
    /// - Throws: ``SyncError/Code/malformedEntry`` when the header is not an integer.
    static func previousWatermark(of entry: JournalEntry) throws(SyncError) -> Int64? {
        try EntryHeader(entry).optionalInteger(SyncHeader.previousWatermark)
    }

    /// The window in an entry's header: both fields or neither, the overlap in range, the
    /// start -1 or an epoch time.
    private static func window(_ header: EntryHeader) throws(SyncError) -> ReSyncWindow? {
        let since = try header.optionalInteger(SyncHeader.modifiedSince)
        let overlap = try header.optionalInteger(SyncHeader.reSyncOverlapSeconds)
        // Pages journaled before decision 0325 name no previous watermark.
        let previous = try header.optionalInteger(SyncHeader.previousWatermark) ?? -1
        guard since != nil || overlap != nil else { return nil }
        guard let since, let overlap, since >= -1, previous >= -1,
            (0...Int64(SyncDownTargetDescriptor.reSyncOverlapSecondsMax)).contains(overlap)
        else {
            throw SyncError(
                .malformedEntry,
                "Entry \(header.entry.sequence) (\(header.entry.kind)): headers \"\(SyncHeader.modifiedSince)\" and "
                    + "\"\(SyncHeader.reSyncOverlapSeconds)\" must come together, -1 or later and 0 to "
                    + "\(SyncDownTargetDescriptor.reSyncOverlapSecondsMax) seconds; \"\(SyncHeader.previousWatermark)\" "
                    + "-1 or later.")
        }
        return ReSyncWindow(modifiedSince: since, overlapSeconds: Int(overlap), previousWatermark: previous)
    }
}

/// Typed reads of an entry's header that name the entry and field on failure.
struct EntryHeader {
    let entry: JournalEntry

    init(_ entry: JournalEntry) {
        self.entry = entry
    }

    func integer(_ name: String) throws(SyncError) -> Int64 {
        guard let value = entry.header[name]?.integer else { throw missing(name, "an integer") }
        return value
    }

    func string(_ name: String) throws(SyncError) -> String {
        guard let value = entry.header[name]?.string else { throw missing(name, "a string") }
        return value
    }

    func optionalString(_ name: String) throws(SyncError) -> String? {
        guard let value = entry.header[name] else { return nil }
        guard let text = value.string else { throw missing(name, "a string") }
        return text
    }

    func optionalInteger(_ name: String) throws(SyncError) -> Int64? {
        guard let value = entry.header[name] else { return nil }
        guard let number = value.integer else { throw missing(name, "an integer") }
        return number
    }

    func bool(_ name: String) throws(SyncError) -> Bool {
        guard let value = entry.header[name]?.bool else { throw missing(name, "a Boolean") }
        return value
    }

    private func missing(_ name: String, _ type: String) -> SyncError {
        SyncError(.malformedEntry, "Entry \(entry.sequence) (\(entry.kind)): header \"\(name)\" must be \(type).")
    }
}
