import Determinism
import EventJournal
import LosslessJSON
import Soups

/// Which records of a sync-down page the fold leaves alone because the soup already holds them:
/// the records a reSync's window brought although Mobile SDK's query would not have.
///
/// Mobile SDK's reSync asks for `date > watermark`; this library's window asks from the start
/// of the watermark's second minus an overlap (decision 0321), so it also brings records dated
/// at or before the watermark. Such a record, when the soup holds it with the same modification
/// date, is invisible (decision 0325): no write, no change of `__sync_id__`, not counted as a
/// change, under either merge mode. Every other record follows Mobile SDK's rules: OVERWRITE
/// overwrites a dirty record, LEAVE_IF_CHANGED keeps it, the sync that writes a record owns it.
///
/// The rule is read from the page's header, so a replay decides as the live run did:
/// - pages of decision 0325 carry `previousWatermark` (`-1` for a full sync, which leaves
///   nothing alone);
/// - pages of decision 0321 carry only `modificationDateFieldName` and fold as they did then:
///   any date, the owner compared;
/// - older pages carry neither and leave nothing alone.
struct RefetchRule {
    /// The modification date field of the soup being written (a parent/children page has two).
    let dateField: String?
    /// Records dated at or before this instant, epoch milliseconds, are candidates; `nil` for
    /// every date (decision 0321's pages).
    let datedThrough: Int64?

    /// A rule that leaves nothing alone.
    static let none = RefetchRule(dateField: nil, datedThrough: nil)

    /// The rule of a page, for its records' date field.
    /// - Parameters:
    ///   - page: the page, as its parser read it.
    ///   - entry: the page's entry, whose header tells this rule's pages from earlier ones.
    init(_ page: SyncDownPage, _ entry: JournalEntry) throws {
        let dateField = page.modificationDateFieldName
        if let bound = try SyncDownPage.previousWatermark(of: entry) {
            self.init(dateField: bound >= 0 ? dateField : nil, datedThrough: bound)
        } else {
            self.init(dateField: dateField, datedThrough: nil)
        }
    }

    init(dateField: String?, datedThrough: Int64?) {
        self.dateField = dateField
        self.datedThrough = datedThrough
    }

    /// The same rule for another soup's records (a parent/children page's children).
    func withDateField(_ field: String?) -> RefetchRule {
        RefetchRule(dateField: dateField == nil ? nil : field, datedThrough: datedThrough)
    }

    /// Whether any record can be left alone.
    var appliesToSomeDate: Bool {
        dateField != nil
    }

    /// Whether `fetched` is left alone because `stored` already holds it.
    ///
    /// It must be dated at or before the bound and with the same instant as `stored` (dates are
    /// compared as instants, decision 0303; a date missing or unreadable on either side is never
    /// the same). Then a dirty `stored` is a local edit of the copy the server still has: kept. A
    /// clean `stored` is left alone only if writing `fetched` would change nothing but the
    /// store's bookkeeping and the owner: Salesforce dates are whole seconds, so a second edit
    /// within the watermark's second keeps the date and changes the fields, and it is applied.
    /// Decision 0321's pages also compare the owner (`__sync_id__`), as they did.
    ///
    /// - Parameter whole: `fetched` with every member, when `fetched` holds only some (a fold
    ///   that skipped the members it does not read); called only for the last comparison.
    /// - Complexity: O(fields of the record).
    func leavesAlone(
        _ fetched: JSONValue, as stored: JSONValue, syncId: Int64, whole: (() throws -> JSONValue)? = nil
    ) rethrows -> Bool {
        guard let dateField, let fetchedDate = Self.modificationTime(fetched, dateField),
            fetchedDate <= datedThrough ?? .max, fetchedDate == Self.modificationTime(stored, dateField)
        else { return false }
        if LocalFlags.isDirty(stored) { return true }
        guard let entryId = stored[SoupStore.entryIdField]?.number?.int64Value,
            let time = stored[SoupStore.lastModifiedDateField]?.number?.int64Value,
            let members = try (whole?() ?? fetched).object
        else { return false }
        // The owner kept, so the comparison ignores it (decision 0325); 0321 compared this sync.
        let owner =
            datedThrough == nil ? syncId : (stored[LocalFlags.syncId]?.number?.int64Value ?? -1)
        let added = AddedMembers.fields(
            syncId: owner, entryId: entryId, at: WallTime(millisecondsSinceEpoch: time))
        return JSONValue.object(members.merging(added) { $1 }) == stored
    }

    private static func modificationTime(_ record: JSONValue, _ dateField: String) -> Int64? {
        record[dateField]?.string.flatMap(WallTime.init(iso8601:))?.millisecondsSinceEpoch
    }
}
