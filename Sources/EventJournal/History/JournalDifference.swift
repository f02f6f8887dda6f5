/// How two journals differ: the first entry that is not the same, and the first divergent key
/// of each projection database.
public struct JournalDifference: Sendable, Hashable {
    /// The last sequence of each journal.
    public var lastSequences: (UInt64, UInt64)
    /// The first sequence whose entries differ (or exist in only one journal); `nil` when the
    /// entries are identical.
    public var firstDifferentSequence: UInt64?
    /// The first differing key of each projection database both journals declare; in each,
    /// `stored` is this journal's value and `rebuilt` the other journal's.
    public var projectionDivergences: [VerificationReport.Divergence]

    /// Whether entries and projections are identical.
    public var isEmpty: Bool {
        firstDifferentSequence == nil && projectionDivergences.isEmpty
    }

    public static func == (lhs: JournalDifference, rhs: JournalDifference) -> Bool {
        lhs.lastSequences == rhs.lastSequences && lhs.firstDifferentSequence == rhs.firstDifferentSequence
            && lhs.projectionDivergences == rhs.projectionDivergences
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(lastSequences.0)
        hasher.combine(lastSequences.1)
        hasher.combine(firstDifferentSequence)
        hasher.combine(projectionDivergences)
    }
}
