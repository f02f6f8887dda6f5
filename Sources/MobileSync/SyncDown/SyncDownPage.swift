import Determinism
package import LosslessJSON

/// One page of records fetched by a sync down, as one journal entry.
///
/// The entry holds the server's records byte for byte and the bookkeeping that goes with them,
/// so applying the page and advancing the watermark are one append (a crash never leaves the
/// watermark ahead of the records). The soup projection applies the merge mode when it folds
/// the entry. docs/mobilesync.md describes the format.
package struct SyncDownPage: Hashable, Sendable {
    /// The sync that fetched the page.
    package var syncId: Int64
    /// The soup the records go to.
    package var soupName: String
    /// The page's place in its run: 0 for the first page.
    package var pageNumber: Int64
    /// The records: a JSON array, exactly as the server sent it.
    package var records: [UInt8]
    /// The records the target expects for the whole run; `-1` when unknown.
    package var totalSize: Int64
    /// The latest modification time among the page's records, epoch milliseconds; `-1` when any
    /// record lacks a readable one (see ``latestModificationTimeStamp(of:fieldName:)``).
    package var maxTimeStamp: Int64
    /// Whether the target returns records in modification order, so the sync's watermark
    /// advances with this page rather than only when the run completes.
    package var advancesWatermark: Bool
    /// The target's id field: the soup fold matches fetched records to local ones by its value.
    package var idFieldName: String
    /// The sync's merge mode, applied by the soup fold when the page is appended.
    package var mergeMode: MergeMode
    /// The target's modification date field. With it the soup fold leaves alone a record fetched
    /// again with the date the soup's copy already has (decision 0321); pages journaled before
    /// that rule have none and are folded as they were.
    package var modificationDateFieldName: String?
    /// The dates the page's request asked for, when the target says (``SyncDownTarget/reSyncWindow``).
    package var reSyncWindow: ReSyncWindow?
    /// For a parent/children page: where each record's nested children go. The soup fold
    /// then stores each record without its children in ``soupName`` and the children in
    /// their own soup, each with its parent's id.
    package var children: SyncDownPageDestination.Children?
    /// How many records (parents, for a parent/children page) the page holds; `-1` when not
    /// said (pages journaled before decision 0325). The sync-state fold counts progress with it.
    package var recordCount: Int64

    /// Creates a page.
    package init(
        syncId: Int64, soupName: String, pageNumber: Int64, records: [UInt8], totalSize: Int64, maxTimeStamp: Int64,
        advancesWatermark: Bool, idFieldName: String = SyncDownTargetDescriptor.idFieldNameDefault,
        mergeMode: MergeMode = .overwrite, modificationDateFieldName: String? = nil, reSyncWindow: ReSyncWindow? = nil,
        children: SyncDownPageDestination.Children? = nil, recordCount: Int64 = -1
    ) {
        self.children = children
        self.recordCount = recordCount
        self.syncId = syncId
        self.soupName = soupName
        self.pageNumber = pageNumber
        self.records = records
        self.totalSize = totalSize
        self.maxTimeStamp = maxTimeStamp
        self.advancesWatermark = advancesWatermark
        self.idFieldName = idFieldName
        self.mergeMode = mergeMode
        self.modificationDateFieldName = modificationDateFieldName
        self.reSyncWindow = reSyncWindow
    }

    /// The page's records, parsed.
    ///
    /// - Throws: ``SyncError/Code/malformedJSON`` when the bytes are not a JSON array.
    package func parsedRecords() throws(SyncError) -> [JSONValue] {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: records)
        } catch {
            throw SyncError(.malformedJSON, "Sync \(syncId) page \(pageNumber): records are not JSON.", cause: error)
        }
        guard let array = value.array else {
            throw SyncError(.malformedJSON, "Sync \(syncId) page \(pageNumber): records must be a JSON array.")
        }
        return array
    }

    /// The latest modification time of a page, epoch milliseconds, or `-1`.
    ///
    /// Every record's `fieldName` is read as a Salesforce date-time (`2024-05-01T12:30:00.000+0000`,
    /// also `Z` or `+hh:mm`). If any record lacks the field or it does not parse, the page
    /// contributes nothing (`-1`), as in Mobile SDK: a watermark past a record whose time is
    /// unknown could skip that record's later changes. An empty page gives `-1`.
    ///
    /// - Complexity: O(*n*) in the page size.
    package static func latestModificationTimeStamp(of records: [JSONValue], fieldName: String) -> Int64 {
        var latest: Int64 = -1
        for record in records {
            guard let text = record[fieldName]?.string, let time = WallTime(iso8601: text) else { return -1 }
            latest = max(latest, time.millisecondsSinceEpoch)
        }
        return latest
    }

    /// The latest modification time of a parent/children page, epoch milliseconds, or `-1`.
    ///
    /// The parents' time as ``latestModificationTimeStamp(of:fieldName:)`` reads it (`-1` when
    /// any parent lacks one), raised by each parent's children read the same way with their
    /// own field, as Mobile SDK does. A page whose parents give `-1` gives `-1` whatever its
    /// children say: a watermark from a child alone could pass a parent whose time is unknown.
    ///
    /// - Complexity: O(*n*) in the parents and children of the page.
    package static func latestModificationTimeStamp(
        ofParents parents: [JSONValue], fieldName: String, children: SyncDownPageDestination.Children
    ) -> Int64 {
        var latest = latestModificationTimeStamp(of: parents, fieldName: fieldName)
        guard latest >= 0 else { return -1 }
        for parent in parents {
            let nested = nestedChildren(of: parent, relationshipName: children.relationshipName)
            latest = max(latest, latestModificationTimeStamp(of: nested, fieldName: children.modificationDateFieldName))
        }
        return latest
    }

    /// The children a fetched parent holds under `relationshipName`: the `records` of the
    /// nested query result, none when it is null or missing (Salesforce sends null for a
    /// parent without children).
    package static func nestedChildren(of parent: JSONValue, relationshipName: String) -> [JSONValue] {
        parent[relationshipName]?["records"]?.array ?? []
    }
}
