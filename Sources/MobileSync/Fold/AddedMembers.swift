import Determinism
import LosslessJSON
import Soups

/// The fields a sync down adds to every record it stores, and their serialization as members
/// (no braces) made once per page: only `_soupEntryId` differs between the page's records.
struct AddedMembers {
    /// The members up to the entry id's value, and after it.
    private let head: [UInt8]
    private let tail: [UInt8]

    /// `nil` if the serialization does not hold `"_soupEntryId":0` (it always does); the fold
    /// then serializes each record whole.
    init?(syncId: Int64, at time: WallTime) {
        let bytes = JSONValue.object(Self.fields(syncId: syncId, entryId: 0, at: time)).serialized()
        let members = Array(bytes.dropFirst().dropLast())
        // The key is unique, and no other member's value is a string that could contain it.
        let marker = JSONValue.string(SoupStore.entryIdField).serialized() + Array(":0".utf8)
        guard let range = members.firstRange(of: marker) else { return nil }
        head = Array(members[..<(range.upperBound - 1)])
        tail = Array(members[range.upperBound...])
    }

    /// The members for the record `entryId`.
    func bytes(entryId: Int64) -> [UInt8] {
        head + Array(String(entryId).utf8) + tail
    }

    /// The fields a sync down adds to every record it stores: Mobile Sync's clean flags,
    /// `__sync_id__` (only for a sync id ≥ 0, as Mobile SDK does), and the store's bookkeeping
    /// fields. Every name begins with `_`, which `SerializedPage` relies on.
    static func fields(syncId: Int64, entryId: Int64, at time: WallTime) -> [String: JSONValue] {
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
