import EventJournal
package import Soups

/// MobileSync's folds of its entries into the soups, which every soup projection of a sync store
/// is made with (`SoupProjection(rules:)`): fetched pages, ghost cleanings, upload intents and
/// outcomes, conflict resolutions, and which soups keep bases.
package enum SyncFoldRules {
    /// One rule of each kind: ``ServerPageRule``, ``GhostCleaningRule``, ``UploadRule``,
    /// ``ConflictResolutionRule``, ``BaseKeepingRule``.
    package static func make() -> [any SoupFoldRule] {
        [ServerPageRule(), GhostCleaningRule(), UploadRule(), ConflictResolutionRule(), BaseKeepingRule()]
    }

    /// The page rule of the soup projection `journal` was opened with.
    /// - Precondition: the journal was opened with a soup projection made with ``make()``.
    static func pageRule(of journal: Journal) -> ServerPageRule {
        let rules = journal.projections.lazy.compactMap { $0 as? SoupProjection }.first?.rules ?? []
        guard let rule = rules.lazy.compactMap({ $0 as? ServerPageRule }).first else {
            preconditionFailure("the journal was opened without MobileSync's fold rules")
        }
        return rule
    }
}
