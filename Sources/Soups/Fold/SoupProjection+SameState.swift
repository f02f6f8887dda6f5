public import EventJournal

extension SoupProjection {
    /// Whether two values of one key hold the same state: two values of `soups.records` do when
    /// they open to the same JSON.
    ///
    /// A record value is stored compressed, and zstd promises that a frame opens everywhere,
    /// not that every version of it compresses alike (decision 0030): a store rebuilt, or
    /// written on another machine, after a zstd upgrade may hold other bytes for the same
    /// record. Every other database holds one encoding per state. A value that does not open
    /// (damage) is never the same state, so `verify` still reports it.
    /// - Parameters:
    ///   - name: the database both values are in.
    ///   - key: the key both values are stored under.
    ///   - stored: the value in `storedState`.
    ///   - storedState: the state `verify` checks, or this journal's in `diff`.
    ///   - rebuilt: the value in `rebuiltState`.
    ///   - rebuiltState: the state folded from the journal, or the other journal's in `diff`.
    public func holdSameState(
        database name: String, key: [UInt8], stored: [UInt8], in storedState: ProjectionContext,
        rebuilt: [UInt8], in rebuiltState: ProjectionContext
    ) throws -> Bool {
        guard name == SoupDatabases.recordsName, key.count == SoupDatabases.recordKeyCount,
            let storedJSON = Self.recordJSON(stored, key: key, in: storedState),
            let rebuiltJSON = Self.recordJSON(rebuilt, key: key, in: rebuiltState)
        else { return false }
        return storedJSON == rebuiltJSON
    }

    /// The value of record `key` opened to its JSON, or `nil` when it does not open.
    private static func recordJSON(_ stored: [UInt8], key: [UInt8], in context: ProjectionContext) -> [UInt8]? {
        let state = SoupState(transaction: context.transaction, databases: SoupDatabases.of(context))
        // The key's soup is the soup whose dictionaries the value names.
        let soupId = UInt32(truncatingIfNeeded: readBigEndian(key.prefix(4)))
        return try? state.json(ofStored: stored, soupId: soupId)
    }
}
