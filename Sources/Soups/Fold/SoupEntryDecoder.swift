import EventJournal
import LosslessJSON

/// Parses the payloads of saves and fetched pages ahead of the soup fold, on the thread that
/// reads a rebuild's, a recovery's or a compaction's entries (``ProjectionEntryDecoder``).
///
/// It trims each record to the members its soup's fold reads, as far as the decoder knows: as
/// the fold's state held them when the decoder was made, then as the registrations, alters and
/// drops it decodes change them. The fold checks that it still reads those
/// (``ParsedSave/keptMembers``, ``DecodedPage/keptMembers``) and parses again when they differ
/// (a create that started uploading adds a member the decoder cannot know). An entry of a soup
/// it does not know is parsed whole, which fits any state.
struct SoupEntryDecoder: ProjectionEntryDecoder {
    /// Each known soup's ``SoupCatalogEntry/foldedRecordMembers``; a soup whose saves are
    /// folded whole is absent.
    var saveMembers: [String: [String]]
    /// Each known soup's ``SoupProjection/spliceableMembers(ofSoup:in:)``; a soup whose pages
    /// are folded whole is absent.
    var pageMembers: [String: [String]]
    /// Each known soup's catalog entry, for the index keys of its saved records.
    var soups: [String: SoupCatalogEntry]

    /// A ``ParsedSave`` for a save, a ``DecodedPage`` for a fetched page; `nil` for other kinds
    /// and for an entry the fold must report itself.
    mutating func decode(_ entry: JournalEntry) -> (any Sendable)? {
        switch entry.kind {
        case SoupEntryKind.saved.kind:
            let soupName = entry.header["soup"]?.string
            guard var parsed = try? ParsedSave(entry, keepingMembers: soupName.flatMap { saveMembers[$0] }) else {
                return nil
            }
            if let soup = soupName.flatMap({ soups[$0] }) { parsed.computeIndexEntries(in: soup) }
            return parsed
        case .syncDownPageFetched:
            return SoupProjection.decodePage(entry, soupMembers: pageMembers)
        case SoupEntryKind.registered.kind, SoupEntryKind.altered.kind, SoupEntryKind.dropped.kind:
            learn(from: entry)
            return nil
        default:
            return nil
        }
    }

    /// Follows a registration, an alter or a drop: a soup the decoder cannot read from the
    /// entry is forgotten, so its records are parsed whole.
    private mutating func learn(from entry: JournalEntry) {
        guard let name = entry.header["soup"]?.string else { return }
        saveMembers[name] = nil
        pageMembers[name] = nil
        soups[name] = nil
        guard entry.kind != SoupEntryKind.dropped.kind, let payload = try? entry.jsonPayload(),
            payload["soup"]?.string == name, let soup = try? SoupCatalogEntry(json: payload)
        else { return }
        saveMembers[name] = soup.foldedRecordMembers
        soups[name] = soup
        // A new soup has no create uploading; an altered one may have, which the fold notices.
        pageMembers[name] = SoupProjection.spliceableMembers(of: soup, uploading: [])
    }
}
