import EventJournal
import LosslessJSON

/// Parses the payloads of saves ahead of the soup fold, and hands the entries of the fold rules'
/// kinds to their decoders (fetched pages), on the thread that reads a rebuild's, a recovery's
/// or a compaction's entries (``ProjectionEntryDecoder``).
///
/// It trims each record to the members its soup's fold reads, as far as the decoder knows: as
/// the fold's state held them when the decoder was made, then as the registrations, alters and
/// drops it decodes change them (which it passes on to the rules' decoders). The fold checks
/// that it still reads those (``ParsedSave/keptMembers``) and parses again when they differ. An
/// entry of a soup it does not know is parsed whole, which fits any state.
struct SoupEntryDecoder: ProjectionEntryDecoder {
    /// Each known soup's ``SoupCatalogEntry/foldedRecordMembers``; a soup whose saves are
    /// folded whole is absent.
    var saveMembers: [String: [String]]
    /// Each known soup's catalog entry, for the index keys of its saved records.
    var soups: [String: SoupCatalogEntry]
    /// The decoders of the fold rules that decode ahead, by the kinds they fold.
    var ruleDecoders: [JournalEntry.Kind: any SoupFoldRuleDecoder]

    /// A ``ParsedSave`` for a save, what a rule's decoder gives for its kinds; `nil` for other
    /// kinds and for an entry the fold must report itself.
    mutating func decode(_ entry: JournalEntry) -> (any Sendable)? {
        switch entry.kind {
        case SoupEntryKind.saved.kind:
            let soupName = entry.header["soup"]?.string
            guard var parsed = try? ParsedSave(entry, keepingMembers: soupName.flatMap { saveMembers[$0] }) else {
                return nil
            }
            if let soup = soupName.flatMap({ soups[$0] }) { parsed.computeIndexEntries(in: soup) }
            return parsed
        case SoupEntryKind.registered.kind, SoupEntryKind.altered.kind, SoupEntryKind.dropped.kind:
            learn(from: entry)
            return nil
        default:
            return ruleDecoders[entry.kind]?.decode(entry)
        }
    }

    /// Follows a registration, an alter or a drop: a soup the decoder cannot read from the
    /// entry is forgotten, so its records are parsed whole.
    private mutating func learn(from entry: JournalEntry) {
        guard let name = entry.header["soup"]?.string else { return }
        saveMembers[name] = nil
        soups[name] = nil
        var soup: SoupCatalogEntry?
        if entry.kind != SoupEntryKind.dropped.kind, let payload = try? entry.jsonPayload(),
            payload["soup"]?.string == name
        {
            soup = try? SoupCatalogEntry(json: payload)
        }
        for kind in ruleDecoders.keys { ruleDecoders[kind]?.soupChanged(name, to: soup) }
        guard let soup else { return }
        saveMembers[name] = soup.foldedRecordMembers
        soups[name] = soup
    }
}
