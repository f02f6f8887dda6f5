import LosslessJSON
import Synchronization

/// What the appender of an entry already holds in memory about its payload, handed to the
/// fold of that same entry so the fold does not parse (or serialize) it again.
///
/// Two appenders use it: a ``SoupStore`` saving records (the parsed payload and each record's
/// bytes: without it a bulk create serializes every record twice and parses the payload once
/// more) and MobileSync's engine appending a fetched page to its page rule (its parsed records,
/// and where each sits in the payload: a page of 2,000 records is megabytes).
///
/// The fold stays a pure function of the journal: it takes the value only for the entry's
/// sequence and exact payload bytes, and the appender vouches that the value is what parsing
/// those bytes gives (JSON serialization round-trips `JSONValue` exactly). Any other fold
/// (rebuild, verify, a store in another process, an entry appended by other code) finds
/// nothing here and parses the payload, and `verify` compares the two paths.
package final class EntryHandoff<Value: Sendable>: Sendable {
    private struct Offer: Sendable {
        var sequence: UInt64
        var payload: [UInt8]
        var value: Value
    }

    private let pending = Mutex<Offer?>(nil)

    package init() {}

    /// Offers `value` for the entry about to be appended at `sequence` with `payload`,
    /// replacing any earlier offer.
    package func offer(sequence: UInt64, payload: [UInt8], value: Value) {
        pending.withLock { $0 = Offer(sequence: sequence, payload: payload, value: value) }
    }

    /// The offered value when it belongs to this entry; clears the offer either way, so a
    /// value whose append failed is never used for a later entry.
    package func take(sequence: UInt64, payload: [UInt8]) -> Value? {
        let offer = pending.withLock { pending in
            defer { pending = nil }
            return pending
        }
        guard let offer, offer.sequence == sequence, offer.payload == payload else { return nil }
        return offer.value
    }
}

/// The records of a `soup.saved` entry as the store that appends it has them.
struct SavedRecords: Sendable {
    /// What parsing the payload gives: `{soup, records}`.
    var value: JSONValue
    /// Each record's compact serialization, as it stands in the payload.
    var recordBytes: [[UInt8]]
}
