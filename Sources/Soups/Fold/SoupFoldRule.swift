package import EventJournal

/// A fold of entry kinds that another module writes and owns, run by ``SoupProjection`` in the
/// soup fold: MobileSync's sync-down pages, ghost cleanings and upload intents and outcomes.
///
/// The soup projection owns records, indexes, the dirty set and the catalog; a rule owns what
/// its entries mean. The projection hands each entry of a kind in ``kinds`` to the rule, with
/// the soup state (``SoupState``) to read and change, in the same write transaction as the
/// append, so the rule decides at apply time (DESIGN invariant 5). A rule is a pure function of
/// the entry and that state, as every fold is.
///
/// Reserved for the sync engine: Soups knows nothing of sync semantics, and a journal holding
/// sync entries must be opened with the rules that fold them.
package protocol SoupFoldRule: Sendable {
    /// The entry kinds the rule folds; the projection ignores no other entry of these kinds.
    var kinds: Set<JournalEntry.Kind> { get }

    /// Folds `entry` into the soups.
    /// - Parameters:
    ///   - entry: an entry of one of ``kinds``.
    ///   - decoded: what the rule's decoder (``makeDecoder(in:)``) gave for it, if anything.
    ///   - state: the soups as folded so far, in the append's transaction.
    ///   - context: the transaction's projection context, for state the rule's module owns.
    /// - Throws: an error to refuse the entry; the whole append is then rolled back.
    func apply(_ entry: JournalEntry, decoded: (any Sendable)?, to state: SoupState, in context: ProjectionContext)
        throws

    /// The soups that folding `entry` may change, for observers of a soup.
    func soupNames(touchedBy entry: JournalEntry) -> [String]

    /// What parses the rule's entries ahead of its fold, on the thread that reads a rebuild's
    /// entries, or `nil`; see `ProjectionEntryDecoder`.
    /// - Parameter state: the soups as folded so far, read-only here.
    func makeDecoder(in state: SoupState) throws -> (any SoupFoldRuleDecoder)?
}

extension SoupFoldRule {
    /// No decoding ahead.
    package func makeDecoder(in state: SoupState) throws -> (any SoupFoldRuleDecoder)? {
        nil
    }
}

/// Parses a ``SoupFoldRule``'s entries ahead of its fold (see `ProjectionEntryDecoder`).
///
/// The fold must check that what was decoded still fits the state it folds into, and fold the
/// entry as without it otherwise.
package protocol SoupFoldRuleDecoder: Sendable {
    /// What the rule's fold of `entry` can use, or `nil`.
    mutating func decode(_ entry: JournalEntry) -> (any Sendable)?

    /// Follows a registration, alter or drop of soup `name` decoded earlier in the same fold:
    /// `soup` is its catalog entry now, or `nil` when the decoder cannot know it.
    mutating func soupChanged(_ name: String, to soup: SoupCatalogEntry?)
}
