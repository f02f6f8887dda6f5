public import EventJournal
import LMDBStore
import LosslessJSON

/// The projection that folds soup entries into records, indexes, the dirty set and the soup
/// catalog.
///
/// Open the journal with it, then make a ``SoupStore`` on that journal:
///
/// ```swift
/// let journal = try Journal(directory: url, projections: [SoupProjection()], clock: clock, logger: logger)
/// let store = SoupStore(journal: journal, clock: clock, idGenerator: IncrementingIDGenerator())
/// ```
///
/// The fold reads only the entry and its own databases: ids and times are in the entries.
public struct SoupProjection: Projection {
    /// The projection's name in the journal's metadata.
    public let name = "soups"
    /// The layout version of the projection's databases; a change rebuilds them on open.
    ///
    /// Version 3 folds diacritics out of full-text tokens and keeps each record's creation
    /// date; version 4 stores record values compressed with a dictionary per soup once the
    /// soup has one (decision 0030). A compacted store of version 2 or 3 migrates in place
    /// (``migrate(from:in:)``).
    public let version = 4
    /// Versions 2 and 3 migrate in place.
    public var migratableVersions: Set<Int> {
        [2, 3]
    }
    /// The LMDB databases the projection owns (their layout is in `docs/soups.md`).
    public var databaseNames: [String] {
        SoupDatabases.names
    }
    /// Where the store leaves the records of the `soup.saved` entry it is appending.
    let handoff = EntryHandoff<SavedRecords>()
    /// Decoded catalog entries, shared by the fold and the stores on this projection.
    let catalogCache = CatalogCache()
    /// The folds of other modules' entry kinds (MobileSync's sync entries), by kind.
    package let rules: [any SoupFoldRule]
    /// Where the fold reports what it does to the records of one soup, when it is traced.
    package let trace: SoupFoldTrace?
    private let rulesByKind: [JournalEntry.Kind: Int]

    /// Creates the projection, which folds the soup entries only.
    public init() {
        self.init(rules: [])
    }

    /// Creates the projection with the rules that fold other modules' entries into the soups.
    ///
    /// Reserved for the sync engine: MobileSync's `SyncStore` passes its rules.
    /// - Parameters:
    ///   - rules: each folds the entries of its kinds; no two share a kind.
    ///   - trace: where the fold reports each change of a traced soup's records, for a fold
    ///     that tells a record's history; `nil` for every fold that keeps a state.
    package init(rules: [any SoupFoldRule], trace: SoupFoldTrace? = nil) {
        self.rules = rules
        self.trace = trace
        var byKind: [JournalEntry.Kind: Int] = [:]
        for (position, rule) in rules.enumerated() {
            for kind in rule.kinds {
                precondition(SoupEntryKind(kind) == nil, "a fold rule cannot fold the soups' own kind \(kind)")
                precondition(byKind.updateValue(position, forKey: kind) == nil, "two fold rules fold \(kind)")
            }
        }
        rulesByKind = byKind
    }

    /// The soups' state in `context`, as this projection's fold reads and writes it.
    func foldState(_ context: ProjectionContext) -> SoupState {
        SoupState(
            transaction: context.transaction, databases: SoupDatabases.of(context), catalogCache: catalogCache,
            trace: trace)
    }

    /// The rule that folds entries of `kind`, if any.
    func rule(for kind: JournalEntry.Kind) -> (any SoupFoldRule)? {
        rulesByKind[kind].map { rules[$0] }
    }

    /// Folds one entry; entries of other kinds are ignored.
    ///
    /// - Throws: ``SoupError/Code/storage`` for a soup entry that names no soup or an unknown
    ///   one, or whose records have no `_soupEntryId`.
    /// - Complexity: for a save, O(records × (indexes + tokens) × log n) LMDB operations;
    ///   alter, re-index, clear and drop are O(n) in the soup's records.
    public func apply(_ entry: JournalEntry, in context: ProjectionContext) throws {
        trace?.begin(entry)
        if try applyRuleEntry(entry, decoded: nil, in: context) { return }  // other modules' kinds
        if try applyImportEntry(entry, in: context) { return }  // SmartStore imports: SoupProjection+Import.swift
        guard let kind = SoupEntryKind(entry.kind) else { return }
        let state = foldState(context)
        if kind == .saved, try applySave(entry, in: state) { return }
        let payload = try entry.jsonPayload()
        guard let soupName = payload["soup"]?.string else {
            throw SoupError(.storage, "entry \(entry.sequence) of kind \(entry.kind) names no soup")
        }
        switch kind {
        case .registered:
            let soup = try SoupCatalogEntry(json: payload)
            try state.putCatalogEntry(soup)
            let nextSoupId = try state.meta(SoupDatabases.nextSoupIdKey, default: 1)
            try state.putMeta(SoupDatabases.nextSoupIdKey, max(nextSoupId, UInt64(soup.soupId) + 1))
        case .altered:
            try applyAlter(payload, in: state)
        case .reIndexed:
            let soup = try state.requireSoup(soupName)
            let paths = Set((payload["paths"]?.array ?? []).compactMap(\.string))
            try reIndex(soup, ids: Set(soup.indexes.filter { paths.contains($0.spec.path) }.map(\.id)), in: state)
        case .cleared:
            let soupId = try state.requireSoup(soupName).soupId
            try state.removeAllRecords(soupId)
            // Nothing is left to compress; the dictionary stays for the records to come.
            try state.putPendingRecompression(nil, soupId: soupId)
        case .dropped:
            let soupId = try state.requireSoup(soupName).soupId
            try state.removeAllRecords(soupId)
            try state.removeDictionaries(soupId)
            _ = try state.transaction.delete(state.databases.catalog, key: Array(soupName.utf8))
        case .dictionary:
            let dictionary = try SoupDictionaryEntry(payload: payload, sequence: entry.sequence)
            try state.putDictionary(
                dictionary.bytes, id: dictionary.id, in: state.requireSoup(soupName),
                rewritesRecords: dictionary.rewritesRecords)
        case .recompressed:
            let batch = try SoupRecompressionEntry(payload: payload, sequence: entry.sequence)
            try state.recompressRecords(
                of: state.requireSoup(soupName).soupId, dictionaryId: batch.dictionaryId, from: batch.from,
                through: batch.through)
        case .saved:
            let records = payload["records"]?.array ?? []
            try applySave(records, soup: state.requireSoup(soupName), in: state, recordBytes: nil)
        case .deleted:
            let soup = try state.requireSoup(soupName)
            for id in payload["ids"]?.array ?? [] {
                guard let entryId = id.number?.int64Value else { continue }
                try state.removeRecord(soup.soupId, entryId)
            }
        }
    }

    /// Parses the payloads of saves (and, through their rules, fetched pages) ahead of the fold
    /// when many stored entries are folded, on a second thread, knowing the members each soup's
    /// fold reads as of `context`.
    /// - Parameter context: the state folded so far.
    /// - Returns: the decoder.
    public func entryDecoder(in context: ProjectionContext) throws -> (any ProjectionEntryDecoder)? {
        let state = foldState(context)
        var saveMembers: [String: [String]] = [:]
        var soups: [String: SoupCatalogEntry] = [:]
        for name in try state.soupNames() {
            let soup = try state.catalogEntry(name)
            saveMembers[name] = soup?.foldedRecordMembers
            soups[name] = soup
        }
        var ruleDecoders: [JournalEntry.Kind: any SoupFoldRuleDecoder] = [:]
        for rule in rules {
            guard let decoder = try rule.makeDecoder(in: state) else { continue }
            for kind in rule.kinds { ruleDecoders[kind] = decoder }
        }
        return SoupEntryDecoder(saveMembers: saveMembers, soups: soups, ruleDecoders: ruleDecoders)
    }

    /// Folds one entry with the save or page its decoder parsed, when the parse still fits the
    /// soup (an earlier entry of the transaction may have altered it, or started uploading a
    /// create); as ``apply(_:in:)`` otherwise.
    /// - Parameters:
    ///   - entry: the entry to fold.
    ///   - decoded: what this projection's decoder made of it.
    ///   - context: the state to fold into.
    /// - Throws: as ``apply(_:in:)``.
    public func apply(_ entry: JournalEntry, decoded: (any Sendable)?, in context: ProjectionContext) throws {
        trace?.begin(entry)
        if try applyRuleEntry(entry, decoded: decoded, in: context) { return }
        if let parsed = decoded as? ParsedSave {
            let state = foldState(context)
            if let soup = try soup(of: parsed, for: entry, in: state), try store(parsed, in: soup, state) {
                return
            }
        }
        try apply(entry, in: context)
    }

    /// Hands an entry of another module's kind to its rule; `false` for every other entry.
    private func applyRuleEntry(_ entry: JournalEntry, decoded: (any Sendable)?, in context: ProjectionContext) throws
        -> Bool
    {
        guard let rule = rule(for: entry.kind) else { return false }
        let state = foldState(context)
        try rule.apply(entry, decoded: decoded, to: state, in: context)
        return true
    }

    /// Folds a save the fast way when it can; returns `false` when the general path must.
    ///
    /// A store appending a save hands over the records it has just serialized (see
    /// ``EntryHandoff``). Any other fold parses the payload and stores each record as the bytes
    /// it has there: for the saves a store appends, exactly its serialization, so no fold
    /// serializes a saved record again. Both are pure functions of the entry.
    private func applySave(_ entry: JournalEntry, in state: SoupState) throws -> Bool {
        if let handed = handoff.take(sequence: entry.sequence, payload: entry.payload) {
            guard let soupName = handed.value["soup"]?.string else { return false }
            let records = handed.value["records"]?.array ?? []
            try applySave(records, soup: state.requireSoup(soupName), in: state, recordBytes: handed.recordBytes)
            return true
        }
        let kept = try entry.header["soup"]?.string.flatMap { try state.catalogEntry($0)?.foldedRecordMembers }
        if let kept {
            let trimmed = try ParsedSave(entry, keepingMembers: kept)
            if let soup = try soup(of: trimmed, for: entry, in: state) { return try store(trimmed, in: soup, state) }
        }
        let whole = try ParsedSave(entry, keepingMembers: nil)
        guard let soup = try soup(of: whole, for: entry, in: state) else { return false }
        return try store(whole, in: soup, state)
    }

    /// The soup a parsed save stores into, or `nil` when a trimmed parse does not fit: the
    /// payload names another soup than the header, or the soup's fold now reads other members.
    /// - Throws: ``SoupError/Code/storage`` when a whole parse names no soup, or an unknown one.
    private func soup(of parsed: ParsedSave, for entry: JournalEntry, in state: SoupState) throws -> SoupCatalogEntry? {
        guard let kept = parsed.keptMembers else {
            guard let soupName = parsed.value["soup"]?.string else {
                throw SoupError(.storage, "entry \(entry.sequence) of kind \(entry.kind) names no soup")
            }
            return try state.requireSoup(soupName)
        }
        guard let headerSoup = entry.header["soup"]?.string, parsed.value["soup"]?.string == headerSoup,
            let soup = try state.catalogEntry(headerSoup), soup.foldedRecordMembers == kept
        else { return nil }
        return soup
    }

    /// Stores the records of a parsed save as their bytes in the payload; `false` when a record
    /// came without its bytes, so the general path must.
    private func store(_ parsed: ParsedSave, in soup: SoupCatalogEntry, _ state: SoupState)
        throws -> Bool
    {
        // Every record must come with its bytes: the parsed records may hold only the members
        // the fold reads, and one stored from them would lose the rest.
        guard let records = parsed.value["records"]?.array, records.count == parsed.recordBytes.count else {
            return false
        }
        try applySave(
            records, soup: soup, in: state, recordBytes: parsed.recordBytes,
            indexEntries: parsed.indexEntries(in: soup))
        return true
    }

    /// Stores the records of a save; `recordBytes` and `indexEntries`, when given, are their
    /// bytes and their index entries in `soup`.
    private func applySave(
        _ records: [JSONValue], soup: SoupCatalogEntry, in state: SoupState, recordBytes: [[UInt8]]?,
        indexEntries: [IndexEntries]? = nil
    ) throws {
        let storedNextEntryId = try state.meta(SoupDatabases.nextEntryIdKey)
        var nextEntryId = storedNextEntryId ?? 1
        // Read only for a save that adds a record: an edit, the usual save, needs neither it
        // nor the put of an unchanged next id below.
        var newRecordPlacement: SoupState.RecordPlacement?
        for (position, record) in records.enumerated() {
            guard let entryId = record[SoupStore.entryIdField]?.number?.int64Value, entryId > 0 else {
                throw SoupError(.storage, "a saved record of soup \(soup.name) has no _soupEntryId")
            }
            // Every stored id is below the next id, so a record at or above it replaces nothing
            // and its key follows every key of its soup.
            let placement: SoupState.RecordPlacement
            if UInt64(entryId) < nextEntryId {
                placement = .anywhere
            } else {
                placement = try newRecordPlacement ?? state.newRecordPlacement(in: soup)
                newRecordPlacement = placement
            }
            let bytes = recordBytes.flatMap { position < $0.count ? $0[position] : nil }
            let entries = indexEntries.flatMap { position < $0.count ? $0[position] : nil }
            try state.putRecord(
                record, bytes: bytes, indexEntries: entries, entryId: entryId, in: soup, placement: placement)
            nextEntryId = max(nextEntryId, UInt64(entryId) + 1)
        }
        if nextEntryId != storedNextEntryId { try state.putMeta(SoupDatabases.nextEntryIdKey, nextEntryId) }
    }

    /// Brings a version-2 or version-3 state to version 4.
    ///
    /// Version 4 reads every value versions 2 and 3 stored (decision 0030), and their states
    /// hold no dictionary: the dictionaries database is emptied, in case an older build left
    /// one behind when it rebuilt a store that had them, and the store trains each soup's again.
    /// From version 2, also as described below.
    ///
    /// A version-2 state becomes version 3 (decision 0010): every record's full-text tokens
    /// are taken again from the record, so they lose their diacritics as the fold now takes
    /// them; only indexes that gave the record tokens, so one added without re-indexing stays
    /// empty as SmartStore leaves it. Creation dates were not kept by version 2, and the
    /// entries that created the records may be gone: those records keep none, and read their
    /// last modification date as their creation date.
    /// - Parameters:
    ///   - version: 2 or 3.
    ///   - context: the state to migrate.
    public func migrate(from version: Int, in context: ProjectionContext) throws {
        let state = foldState(context)
        try state.transaction.clear(state.databases.dictionaries)
        guard version == 2 else { return }
        for name in try state.soupNames() {
            let soup = try state.requireSoup(name)
            guard soup.indexes.contains(where: { $0.spec.type == .fullText }) else { continue }
            let allIds = Set(soup.indexes.map(\.id))
            try rewriteIndexEntries(soup, in: state) { record, entryId, current in
                let tokenized = Set(current.tokenKeys.map(SoupDatabases.indexId(ofKey:)))
                guard !tokenized.isEmpty else { return current }
                var entries = current.keeping(allIds.subtracting(tokenized))
                entries.merge(
                    try IndexEntries.keys(
                        for: record, entryId: entryId, in: soup, only: tokenized, transaction: state.transaction))
                return entries
            }
        }
    }

    private func applyAlter(_ payload: JSONValue, in state: SoupState) throws {
        let altered = try SoupCatalogEntry(json: payload)
        let old = try state.requireSoup(altered.name)
        let keptIds = Set(old.indexes.map(\.id)).intersection(altered.indexes.map(\.id))
        let newIds = Set(altered.indexes.map(\.id)).subtracting(keptIds)
        let reIndex = payload["reIndex"]?.bool ?? false
        try state.putCatalogEntry(altered)
        try rewriteIndexEntries(altered, in: state) { record, entryId, current in
            var entries = current.keeping(keptIds)
            if reIndex {
                entries.merge(
                    try IndexEntries.keys(
                        for: record, entryId: entryId, in: altered, only: newIds, transaction: state.transaction))
            } else {
                // SmartStore leaves a new column NULL; a new full-text index also has no tokens.
                for index in altered.indexes where newIds.contains(index.id) {
                    entries.add(.null, index: index, soupId: altered.soupId, entryId)
                }
            }
            return entries
        }
    }

    private func reIndex(_ soup: SoupCatalogEntry, ids: Set<UInt16>, in state: SoupState) throws {
        let otherIds = Set(soup.indexes.map(\.id)).subtracting(ids)
        try rewriteIndexEntries(soup, in: state) { record, entryId, current in
            var entries = current.keeping(otherIds)
            entries.merge(
                try IndexEntries.keys(
                    for: record, entryId: entryId, in: soup, only: ids, transaction: state.transaction))
            return entries
        }
    }

    /// Replaces every record's index entries with what `rewrite` returns.
    private func rewriteIndexEntries(
        _ soup: SoupCatalogEntry, in state: SoupState,
        _ rewrite: (JSONValue, Int64, IndexEntries) throws -> IndexEntries
    ) throws {
        // One record at a time: the cursor walks `soups.records`, and the writes go to the
        // index, token and key-list databases, which LMDB lets one transaction change while a
        // cursor is open on another database.
        try state.forEachRecord(soup.soupId) { entryId, record in
            let current = try state.indexEntries(soup.soupId, entryId)
            try state.removeIndexEntries(soup.soupId, entryId)
            try state.writeIndexEntries(rewrite(record, entryId, current), soup, entryId)
            return true
        }
    }
}
