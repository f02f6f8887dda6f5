package import EventJournal
import LosslessJSON
package import Soups

/// The fold of `sync.created` entries into the soups: a MERGE_FIELDS sync makes its soup keep
/// the base of every record that becomes dirty from then on (decision 0326).
///
/// Only such soups pay for bases, so a store that never merges keeps the bytes it always had.
/// A record already dirty when the sync is created has no base: its first merge lists every
/// field whose values differ as a conflict rather than guess.
package struct BaseKeepingRule: SoupFoldRule {
    /// `sync.created`.
    package var kinds: Set<JournalEntry.Kind> {
        [.syncCreated]
    }

    /// Creates the rule.
    package init() {}

    /// Marks the soup of a MERGE_FIELDS sync as keeping bases.
    /// - Throws: `SoupError` for a malformed entry; the append is refused.
    package func apply(
        _ entry: JournalEntry, decoded: (any Sendable)?, to state: SoupState, in context: ProjectionContext
    ) throws {
        let sync: SyncState
        do {
            sync = try SyncState(journalEntry: entry)
        } catch {
            throw SoupError(.storage, error.message, cause: error)
        }
        guard sync.options.mergeMode == .mergeFields, let soup = try state.catalogEntry(sync.soupName) else { return }
        try state.keepBases(in: soup)
    }

    /// The sync's soup, as its header names it.
    package func soupNames(touchedBy entry: JournalEntry) -> [String] {
        [entry.header[SyncHeader.soup]?.string].compactMap { $0 }
    }
}
