import EventJournal
import Soups

/// Parses fetched pages ahead of ``ServerPageRule``'s fold, on the thread that reads a rebuild's,
/// a recovery's or a compaction's entries, trimmed to the members each soup's fold reads as far
/// as the decoder knows (``ServerPageRule/spliceableMembers(ofSoup:in:)``).
///
/// The fold checks that it still reads those (``DecodedPage/keptMembers``) and parses again when
/// they differ (a create that started uploading adds a member the decoder cannot know).
struct PageDecoder: SoupFoldRuleDecoder {
    /// Each known soup's spliceable members; a soup whose pages are folded whole is absent.
    var soupMembers: [String: [String]]

    /// A ``DecodedPage``, or `nil` for a page whose header or payload the fold must report itself.
    mutating func decode(_ entry: JournalEntry) -> (any Sendable)? {
        do {
            let page = try ServerPageRule.page(of: entry)
            let kept = ServerPageRule.foldedMembers(
                of: page, rule: try RefetchRule(page, entry), soupMembers: soupMembers[page.soupName])
            return DecodedPage(
                page: try ServerPageRule.fetchedPage(entry, handed: nil, keeping: kept), keptMembers: kept)
        } catch {
            return nil
        }
    }

    /// A new or altered soup has its members as registered: a new soup has no create uploading;
    /// an altered one may have, which the fold notices.
    mutating func soupChanged(_ name: String, to soup: SoupCatalogEntry?) {
        soupMembers[name] = soup.flatMap { ServerPageRule.spliceableMembers(of: $0, uploading: []) }
    }
}
