/// The bytes an entry is stored as: its canonical envelope, or, for a payload that compresses,
/// the compressed envelope (docs/journal-format.md, decision 0029).
///
/// Written straight into LMDB's page (``write(into:)``): a page's entry is megabytes, which
/// would otherwise be built in an array, then copied there.
struct StoredEnvelope {
    let entry: JournalEntry
    /// The fields before the payload or its frame.
    let head: [UInt8]
    /// The payload as one zstd frame; `nil` when the payload is stored as it is.
    let frame: [UInt8]?

    /// How `entry` is stored: compressed when `compressing` and its payload compresses.
    init(_ entry: JournalEntry, compressing: Bool) {
        self.init(entry, frame: compressing ? PayloadCompression.compressed(entry.payload) : nil)
    }

    /// How `entry` is stored given its payload's frame, made beforehand (on another thread,
    /// decision 0034) by ``PayloadCompression/compressed(_:)``; `nil` to store it as it is.
    init(_ entry: JournalEntry, frame: [UInt8]?) {
        self.entry = entry
        self.frame = frame
        head = entry.envelopeHead(compressedPayloadCount: frame?.count)
    }

    /// The stored envelope's size in bytes.
    var byteCount: Int {
        head.count + (frame?.count ?? entry.payload.count) + 4
    }

    /// Writes the stored envelope into `output`, which holds exactly ``byteCount`` bytes.
    /// - Returns: the stored envelope's checksum, which fold marks and horizons record.
    func write(into output: UnsafeMutableRawBufferPointer) -> UInt32 {
        (frame ?? entry.payload).withUnsafeBytes { JournalEntry.writeEnvelope(head: head, body: $0, into: output) }
    }
}
