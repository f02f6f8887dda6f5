public import EventJournal
public import LosslessJSON

extension SoupProjection {
    /// The soups as people read them (`journal-replay state`): per soup its index specs, its
    /// records by `_soupEntryId`, and the `_soupEntryId`s of its dirty records.
    ///
    /// - Parameters:
    ///   - context: the state to describe.
    ///   - filter: `["soup": name]` describes that soup only.
    /// - Throws: ``SoupError/Code/unknownSoup`` when the filter names a soup that does not
    ///   exist (at the state's point in the journal).
    public func describeState(in context: ProjectionContext, filter: [String: String]) throws -> JSONValue {
        let state = SoupState(transaction: context.transaction, databases: SoupDatabases.of(context))
        let names: [String]
        if let soup = filter["soup"] {
            guard try state.catalogEntry(soup) != nil else {
                throw SoupError(.unknownSoup, "no soup named '\(soup)' in this state")
            }
            names = [soup]
        } else {
            names = try state.soupNames()
        }
        var soups: [String: JSONValue] = [:]
        for name in names {
            let soup = try state.requireSoup(name)
            var records: [JSONValue] = []
            var dirty: [JSONValue] = []
            try state.forEachRecord(soup.soupId) { entryId, record in
                records.append(record)
                if LocalFlags.isDirty(record) { dirty.append(.number(JSONNumber(entryId))) }
                return true
            }
            soups[name] = [
                "indexes": .array(soup.specs.map { ["path": .string($0.path), "type": .string($0.type.rawValue)] }),
                "records": .array(records), "dirty": .array(dirty),
            ]
        }
        return .object(soups)
    }
}
