import EventJournal
public import LosslessJSON

// Observing soups (decision 0004): values read from the soup projection again only after an
// entry that touches their soup, and yielded only when they changed.
extension SoupStore {
    /// One page of a query's results: now, then after every commit that changes it.
    ///
    /// ```swift
    /// for try await accounts in store.observeQuery(.all("accounts", orderPath: "Name")) {
    ///     show(accounts)
    /// }
    /// ```
    ///
    /// The query runs again only after a commit of an entry of its soup (writes to other soups
    /// never re-run it) and the page is yielded only when it differs from the last one yielded.
    /// A smart query runs again after an entry of any soup it names in braces.
    /// - Parameters:
    ///   - spec: the query, as for ``query(_:pageIndex:)``.
    ///   - pageIndex: the 0-based page.
    /// - Returns: an observation; nothing is read until it is iterated. Its iterator throws
    ///   what ``query(_:pageIndex:)`` throws, ``SoupError/Code/unknownSoup`` included.
    public func observeQuery(_ spec: QuerySpec, pageIndex: Int = 0) -> SoupObservation<[JSONValue]> {
        // A smart query that does not parse names no soup: its first read throws.
        let soups =
            if case .smart(let sql, _) = spec.filter {
                (try? SmartSQLConverter.referencedSoupNames(sql)) ?? []
            } else {
                Set([spec.soupName])
            }
        return observe(soups) { state in try Self.page(spec, pageIndex: pageIndex, in: state) }
    }

    /// One record by its `_soupEntryId`: now, then after every commit that changes it.
    ///
    /// The record is `nil` while the soup holds no record with that id (not yet created, or
    /// deleted). It is read again only after a commit of an entry of its soup, and yielded only
    /// when it differs from the last one yielded.
    /// - Returns: an observation; nothing is read until it is iterated. Its iterator throws
    ///   ``SoupError/Code/unknownSoup`` when the soup does not exist or is dropped.
    public func observeRecord(_ soup: String, entryId: Int64) -> SoupObservation<JSONValue?> {
        observe([soup]) { state in try state.record(state.requireSoup(soup).soupId, entryId) }
    }

    private func observe<Value: Equatable & Sendable>(
        _ soups: Set<String>, _ value: @escaping @Sendable (SoupState) throws -> Value
    ) -> SoupObservation<Value> {
        let catalogCache = catalogCache
        let rules = foldRules
        return SoupObservation(
            values: journal.observeValue(
                reevaluatingFor: { entry in soups.contains { Self.entry(entry, touches: $0, rules: rules) } },
                read: { reader in
                    try value(
                        SoupState(
                            transaction: reader.transaction, databases: SoupDatabases.of(reader.projectionContext),
                            catalogCache: catalogCache))
                }))
    }

    /// Whether the soup projection changes `soup` when it folds `entry`.
    ///
    /// The soup's own entries name it in their `soup` header; an entry of a fold rule's kind
    /// touches the soups the rule names (``SoupFoldRule/soupNames(touchedBy:)``). Entries of other
    /// kinds change no record, even when they carry a `soup` header (sync states do).
    static func entry(_ entry: JournalEntry, touches soup: String, rules: [any SoupFoldRule]) -> Bool {
        if SoupEntryKind(entry.kind) != nil {
            // A soup entry without the header would name its soup in the payload only: re-read.
            let name = entry.header["soup"]
            return name == nil || name == .string(soup)
        }
        guard let rule = rules.first(where: { $0.kinds.contains(entry.kind) }) else { return false }
        return rule.soupNames(touchedBy: entry).contains(soup)
    }
}
