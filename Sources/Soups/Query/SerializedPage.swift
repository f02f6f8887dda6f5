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

    /// Serializes `records` on the calling thread.
    ///
    /// - Complexity: O(n) in the size of the records for objects whose key sets were seen
    ///   recently in the page (``ObjectKeyOrders``), O(n log n) for the others, like
    ///   `serialized()`.
    package init(records: [JSONValue]) {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        var splices: [RecordSplice?] = []
        Self.write(records[...], into: &bytes, splices: &splices)
        bytes.append(UInt8(ascii: "]"))
        self.bytes = bytes
        self.splices = splices
    }

    private init(bytes: [UInt8], splices: [RecordSplice?]) {
        self.bytes = bytes
        self.splices = splices
    }

    /// The most bytes reserved ahead from a page's first record, so that one large first
    /// record cannot make a page reserve far more than it writes.
    static let reservedByteCountMax = 32 << 20

    /// The fewest records a page has for ``serializing(records:)`` to split it: below it, a
    /// second task costs more than it saves.
    static let splitRecordCountMin = 256

    /// Serializes `records` as ``init(records:)`` does, the two halves of a large page on two
    /// child tasks at once.
    ///
    /// Serializing is a pure function of the records (no clock, ids or randomness), so running
    /// it on two cores changes no byte and no order the engine's other work depends on; it
    /// was a quarter of a sync down's CPU on one thread (docs/decisions/0032-pipelined-ingest.md).
    package static func serializing(records: [JSONValue]) async -> SerializedPage {
        guard records.count >= splitRecordCountMin else { return SerializedPage(records: records) }
        let middle = records.count / 2
        async let second = serializeChunk(records[middle...])
        let first = serializeChunk(records[..<middle])
        let tail = await second
        var bytes: [UInt8] = []
        bytes.reserveCapacity(first.bytes.count + tail.bytes.count + 3)
        bytes.append(UInt8(ascii: "["))
        bytes += first.bytes
        bytes.append(UInt8(ascii: ","))
        let tailBase = bytes.count
        bytes += tail.bytes
        bytes.append(UInt8(ascii: "]"))
        var splices = first.splices.map { $0?.moved(by: 1) }
        splices.reserveCapacity(records.count)
        splices += tail.splices.lazy.map { $0?.moved(by: tailBase) }
        return SerializedPage(bytes: bytes, splices: splices)
    }

    /// `records` serialized and separated by commas, with no brackets, splices counted from
    /// the chunk's first byte.
    private static func serializeChunk(_ records: ArraySlice<JSONValue>) -> (
        bytes: [UInt8], splices: [RecordSplice?]
    ) {
        var bytes: [UInt8] = []
        var splices: [RecordSplice?] = []
        write(records, into: &bytes, splices: &splices)
        return (bytes, splices)
    }

    /// Appends `records` separated by commas to `bytes`, and each one's splice to `splices`.
    private static func write(
        _ records: ArraySlice<JSONValue>, into bytes: inout [UInt8], splices: inout [RecordSplice?]
    ) {
        splices.reserveCapacity(splices.count + records.count)
        var orders = ObjectKeyOrders()
        for (position, record) in zip(records.indices, records) {
            if position > records.startIndex { bytes.append(UInt8(ascii: ",")) }
            if position == records.startIndex + 1 {
                // The first record's size tells roughly how large the page gets: growing the
                // array by doubling copied it a dozen times and faulted in fresh pages each time.
                let estimate = (bytes.count + 1) * (records.count + 1)
                bytes.reserveCapacity(bytes.count + min(estimate, reservedByteCountMax))
            }
            let start = bytes.count
            guard case .object(let members) = record else {
                orders.write(record, into: &bytes)
                splices.append(nil)
                continue
            }
            let (order, split) = orders.writeObject(members, into: &bytes)
            splices.append(
                order.hasKeyStartingWithUnderscore
                    ? nil : RecordSplice(start: start, split: split ?? bytes.count - 1, end: bytes.count))
        }
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

    /// The same record's place in bytes that have `offset` more bytes before it.
    func moved(by offset: Int) -> RecordSplice {
        RecordSplice(start: start + offset, split: split + offset, end: end + offset)
    }

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
