package import EventJournal

/// The journal entry kinds the soup projection folds. Every payload is JSON with a `soup`
/// member naming the soup, and every entry has a `soup` header for filtering.
package enum SoupEntryKind: String, CaseIterable, Sendable {
    /// `{soup, soupId, indexes: [{path, type, id}], nextIndexId}`: a new soup.
    case registered = "soup.registered"
    /// The same as ``registered`` plus `reIndex`: the soup's indexes changed.
    case altered = "soup.altered"
    /// `{soup, paths}`: the indexes on these paths are recomputed from the records.
    case reIndexed = "soup.reindexed"
    /// `{soup}`: every record removed, the soup kept.
    case cleared = "soup.cleared"
    /// `{soup}`: the soup and its records removed.
    case dropped = "soup.dropped"
    /// `{soup, records}`: whole records stored under their `_soupEntryId` (create, update, upsert).
    case saved = "soup.saved"
    /// `{soup, ids}`: records removed by `_soupEntryId`.
    case deleted = "soup.deleted"
    /// `{soup, dictionary, bytes, rewritesRecords}`: a zstd dictionary (`bytes`, base64) with
    /// id `dictionary` becomes the soup's current one (decision 0030). Its records are stored
    /// compressed with it at once when `rewritesRecords` is absent (entries of the first build
    /// that wrote them), and by later ``recompressed`` entries when it is `false` (decision
    /// 0033). Appended by the store, never by a fold.
    case dictionary = "soup.dictionary"
    /// `{soup, dictionary, from, through}`: the soup's records with `_soupEntryId` in
    /// `from...through` are stored again compressed with dictionary `dictionary`, one batch of
    /// the records the soup held when that dictionary came (decision 0033). Appended by the
    /// store, never by a fold.
    case recompressed = "soup.recompressed"

    /// The soup kind of a journal entry kind, `nil` for another module's kind.
    package init?(_ kind: JournalEntry.Kind) {
        self.init(rawValue: kind.rawValue)
    }

    /// The journal entry kind, for a switch over `JournalEntry.Kind`.
    package var kind: JournalEntry.Kind {
        JournalEntry.Kind(rawValue: rawValue)
    }
}
