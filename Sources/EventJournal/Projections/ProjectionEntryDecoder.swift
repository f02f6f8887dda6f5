/// Decodes journal entries for one projection ahead of its fold, on another thread
/// (``Projection/entryDecoder(in:)``).
///
/// A fold over many stored entries spends much of its time parsing payloads, work that needs
/// nothing but the entry. A decoder does that part on a second core while the fold applies
/// the entries before it.
public protocol ProjectionEntryDecoder: Sendable {
    /// What the projection's ``Projection/apply(_:decoded:in:)`` can use for `entry`, or `nil`.
    ///
    /// It is called with every entry of the fold's transaction, in journal order, on one
    /// thread, so a decoder may learn from the entries it sees (a soup registered). It reads
    /// nothing but the entries and what the decoder was made with. It does not throw: an entry
    /// it cannot decode is left to the fold, which reports the entry's fault itself.
    /// - Parameter entry: a stored entry, checked against its checksum.
    /// - Returns: the decoded value, or `nil` for an entry the fold handles alone.
    mutating func decode(_ entry: JournalEntry) -> (any Sendable)?
}
