import SyncCore
import Synchronization

/// The records of a `soup.saved` entry as the ``SoupStore`` that appends it has them,
/// handed to the fold of that same entry.
///
/// Without it, a bulk create serializes every record twice and parses the payload once more
/// (the store serializes the payload, the fold parses it back and serializes each record for
/// the records database). With it, the store serializes each record once, builds the payload
/// from those bytes, and the fold takes the parsed values and the bytes from here.
///
/// The fold stays a pure function of the journal: it takes a batch only when the entry's
/// sequence and payload bytes are the ones offered, and the payload is made of exactly the
/// offered record bytes, so the values are what parsing the payload would give (JSON
/// serialization round-trips `JSONValue` exactly). Any other fold (rebuild, verify, a store
/// on another process, an entry appended by other code) finds nothing here and parses the
/// payload, and `verify` compares the two paths.
final class SavedRecordsHandoff: Sendable {
    /// One entry's records.
    struct Batch: Sendable {
        var sequence: UInt64
        /// The entry's payload bytes.
        var payload: [UInt8]
        /// What parsing `payload` gives: `{soup, records}`.
        var value: JSONValue
        /// Each record's compact serialization, as it stands in `payload`.
        var recordBytes: [[UInt8]]
    }

    private let pending = Mutex<Batch?>(nil)

    init() {}

    /// Offers the batch of the entry about to be appended, replacing any earlier offer.
    func offer(_ batch: Batch) {
        precondition(batch.value["records"]?.array?.count == batch.recordBytes.count, "one serialization per record")
        pending.withLock { $0 = batch }
    }

    /// The offered batch when it belongs to this entry; clears the offer either way, so a
    /// batch whose append failed is never used for a later entry.
    func take(sequence: UInt64, payload: [UInt8]) -> Batch? {
        let batch = pending.withLock { pending in
            defer { pending = nil }
            return pending
        }
        guard let batch, batch.sequence == sequence, batch.payload == payload else { return nil }
        return batch
    }
}
