public import Foundation

/// What ``Journal/recoverJournal(directory:projections:clock:options:logger:)`` did: where the
/// new journal begins and where the damaged one was put.
public struct JournalRecoveryReport: Sendable, Hashable, CustomStringConvertible {
    /// The entry the projections had folded through: the state the new journal starts from.
    public var baselineSequence: UInt64
    /// How many entries after the baseline were read back from the damaged journal file
    /// and kept in the new journal, before its `journal.recovered` entry.
    public var salvagedEntryCount: Int
    /// The new journal's `journal.recovered` entry, right after the baseline and the entries
    /// salvaged.
    public var recoveredSequence: UInt64
    /// The folder holding the damaged journal and the old checkpoints, never deleted.
    public var keptAside: URL
    /// Why the journal could not be opened: the refusal's message.
    public var reason: String

    public var description: String {
        let salvaged =
            salvagedEntryCount == 0
            ? "" : ", keeping the \(salvagedEntryCount) entries after it still readable in the damaged journal"
        return "started a new journal at entry \(recoveredSequence) from the projections' state as of entry "
            + "\(baselineSequence)\(salvaged); the damaged journal and old checkpoints are in \(keptAside.path)"
    }
}
