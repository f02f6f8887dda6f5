package import LosslessJSON

/// A fetched page's records serialized as one JSON array, byte for byte what
/// `JSONValue.array(records).serialized()` writes, with where each record's stored form differs.
///
/// The sync-down fold stores each fetched record with the fields a sync down adds, whose names
/// all begin with `_` (`_soupEntryId`, `__local__`, `__sync_id__`, …). A serialization orders
/// an object's members by the bytes of their keys, so when the record has no key beginning with
/// `_` its stored bytes are its bytes in the page with the added members inserted at one place:
/// before its first key that sorts after `_`. The fold splices them in there instead of
/// serializing every record a second time (docs/decisions/0202-sync-down-ingest-costs.md).
package struct SerializedPage: Sendable {
    /// The page's payload: the records as a JSON array.
    package let bytes: [UInt8]
    /// For each record, where it stands in ``bytes``, or `nil` for a record that is not an
    /// object or already has a key beginning with `_`; the fold serializes those again.
    package let splices: [RecordSplice?]

    private static let underscore = UInt8(ascii: "_")

    /// Serializes `records`.
    ///
    /// - Complexity: O(n log n) in the size of the records (key sorting), like `serialized()`.
    package init(records: [JSONValue]) {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        var splices: [RecordSplice?] = []
        splices.reserveCapacity(records.count)
        var keyOrder: [String] = []
        var values: [JSONValue] = []
        for (position, record) in records.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            let start = bytes.count
            guard case .object(let members) = record else {
                record.write(into: &bytes)
                splices.append(nil)
                continue
            }
            // What `record.write(into:)` writes, noting where the first key after `_` starts.
            bytes.append(UInt8(ascii: "{"))
            var split: Int?
            var hasKeyStartingWithUnderscore = false
            // A page's records nearly always have one set of keys: the previous record's order
            // serves while every key of it is found, and sorting is left for a new set.
            values.removeAll(keepingCapacity: true)
            var hasPreviousKeys = members.count == keyOrder.count
            for key in keyOrder where hasPreviousKeys {
                if let value = members[key] { values.append(value) } else { hasPreviousKeys = false }
            }
            if !hasPreviousKeys {
                let sorted = members.sorted { JSONValue.utf8Precedes($0.key, $1.key) }
                keyOrder = sorted.map(\.key)
                values = sorted.map(\.value)
            }
            for (index, key) in keyOrder.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                if let first = key.utf8.first {
                    if first == Self.underscore { hasKeyStartingWithUnderscore = true }
                    if split == nil, first > Self.underscore { split = bytes.count }
                }
                JSONValue.string(key).write(into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                values[index].write(into: &bytes)
            }
            let close = bytes.count
            bytes.append(UInt8(ascii: "}"))
            splices.append(
                hasKeyStartingWithUnderscore ? nil : RecordSplice(start: start, split: split ?? close, end: bytes.count)
            )
        }
        bytes.append(UInt8(ascii: "]"))
        self.bytes = bytes
        self.splices = splices
    }
}

/// Where one record stands in a serialized page.
package struct RecordSplice: Sendable, Hashable {
    /// The offset of the record's `{`.
    var start: Int
    /// The offset of its first member whose key sorts after `_`, or of its `}` when none does.
    /// The byte before it is the `,` that ends the earlier members, if there are earlier members
    /// and later ones.
    var split: Int
    /// The offset just past its `}`.
    var end: Int

    /// The record's serialization with `members` added: `members` are a serialized object's
    /// members without its braces, every key beginning with `_` and none in the record.
    package func bytes(in page: [UInt8], adding members: ArraySlice<UInt8>) -> [UInt8] {
        let hasEarlierMembers = split > start + 1
        let hasLaterMembers = page[split] != UInt8(ascii: "}")
        var bytes: [UInt8] = []
        bytes.reserveCapacity(end - start + members.count + 2)
        bytes += page[start..<split]
        if hasEarlierMembers && !hasLaterMembers { bytes.append(UInt8(ascii: ",")) }
        bytes += members
        if hasLaterMembers { bytes.append(UInt8(ascii: ",")) }
        bytes += page[split..<end]
        return bytes
    }
}

extension RecordSplice {
    private static let underscore = UInt8(ascii: "_")

    /// Where a record parsed from `page` stands, when its bytes there are its serialization
    /// and it has no key beginning with `_`; `nil` otherwise, and the fold serializes it.
    package init?(_ layout: JSONElementLayout, in page: [UInt8]) {
        guard layout.isSerialized, let close = layout.closeOffset else { return nil }
        var split: Int?
        for offset in layout.memberOffsets {
            // The key's first byte: a serialized key has no escape. The empty key has none.
            let first = page[offset + 1]
            if first == UInt8(ascii: "\"") { continue }
            if first == Self.underscore { return nil }
            if split == nil, first > Self.underscore { split = offset }
        }
        self.init(start: layout.span.lowerBound, split: split ?? close, end: layout.span.upperBound)
    }
}
