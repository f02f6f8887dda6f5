import SyncCore
import Synchronization

/// A payload as its appender already holds it parsed, handed to the fold of that same entry so
/// the fold does not parse megabytes it was just given: a sync-down page of 2,000 records.
///
/// Like ``SavedRecordsHandoff``, the fold stays a pure function of the journal: it takes the
/// value only for the entry's sequence and exact payload bytes, and the appender vouches that
/// the bytes are the value's serialization (which round-trips exactly). Every other fold
/// (rebuild, verify, another process) parses the payload, and `verify` compares the two.
final class ParsedPayloadHandoff: Sendable {
    /// One entry's payload.
    struct Offer: Sendable {
        var sequence: UInt64
        var payload: [UInt8]
        var value: JSONValue
    }

    private let pending = Mutex<Offer?>(nil)

    init() {}

    /// Offers the payload of the entry about to be appended, replacing any earlier offer.
    func offer(_ offer: Offer) {
        pending.withLock { $0 = offer }
    }

    /// The offered value when it belongs to this entry; clears the offer either way, so an
    /// offer whose append failed is never used for a later entry.
    func take(sequence: UInt64, payload: [UInt8]) -> JSONValue? {
        let offer = pending.withLock { pending in
            defer { pending = nil }
            return pending
        }
        guard let offer, offer.sequence == sequence, offer.payload == payload else { return nil }
        return offer.value
    }
}
