/// Where a compacted journal begins.
///
/// Compaction removes the oldest entries (``Journal/compact(retention:archive:progress:)``).
/// The horizon records what is left: the first sequence the journal still holds, and the
/// checksum of the entry just before it, which the checkpoint of the projections at that
/// entry carries too. Sequences stay gap-free from the horizon on, and every state from
/// `firstSequence - 1` on can still be folded: from that checkpoint, forward.
///
/// A journal that was never compacted has the horizon `firstSequence == 1`, anchored at the
/// empty state.
public struct JournalHorizon: Sendable, Hashable, CustomStringConvertible {
    /// The first entry the journal holds. Entries before it were compacted away.
    public let firstSequence: UInt64
    /// The checksum of entry `firstSequence - 1`, which the anchor's fold mark records; 0
    /// when nothing was compacted.
    public let anchorChecksum: UInt32

    /// The horizon of a journal that was never compacted.
    public static let start = JournalHorizon(firstSequence: 1, anchorChecksum: 0)

    /// Whether entries were ever compacted away.
    public var isCompacted: Bool {
        firstSequence > 1
    }

    /// The sequence of the checkpoint every fold starts from: the entry before the horizon.
    public var anchorSequence: UInt64 {
        firstSequence - 1
    }

    public var description: String {
        isCompacted ? "entry \(firstSequence) (compacted below)" : "entry 1 (never compacted)"
    }

    init(firstSequence: UInt64, anchorChecksum: UInt32) {
        precondition(firstSequence >= 1, "a journal's first sequence is at least 1")
        self.firstSequence = firstSequence
        self.anchorChecksum = anchorChecksum
    }

    /// 12 bytes, as a fold mark's: the first sequence (`UInt64` BE) and the anchor checksum
    /// (`UInt32` BE).
    var bytes: [UInt8] {
        FoldMark(sequence: firstSequence, checksum: anchorChecksum).bytes
    }

    init?(bytes: [UInt8]) {
        guard let mark = FoldMark(bytes: bytes), mark.sequence >= 1 else { return nil }
        firstSequence = mark.sequence
        anchorChecksum = mark.checksum
    }

    /// The error for a question about entry `sequence`, which lies below this horizon.
    func belowHorizonError(_ sequence: UInt64, asking question: String) -> JournalError {
        JournalError(
            .belowHorizon,
            "\(question): entry \(sequence) was compacted away; the journal begins at its horizon, entry "
                + "\(firstSequence), and the oldest state it can show is as of entry \(anchorSequence)",
            sequence: sequence)
    }
}
