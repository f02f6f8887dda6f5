public import EventJournal
public import LosslessJSON

/// What `journal-replay state --json` prints: every projection as people read it, as of an
/// entry; shared with the web inspector's time travel.
public enum StateDescription {
    /// The projections of `journal` as they were right after entry `asOf`.
    ///
    /// - Parameters:
    ///   - journal: the open store's journal.
    ///   - asOf: the last entry to include; `nil` or a sequence past the end means the newest.
    ///   - soup: describe only this soup, when given.
    /// - Returns: `{"asOf": N, "projections": {name: state}}`.
    /// - Throws: `SoupError.unknownSoup` when `soup` does not exist at that point, or what
    ///   folding the history throws (`JournalError.belowHorizon` before the horizon).
    public static func json(of journal: Journal, asOf: UInt64?, soup: String?) throws -> JSONValue {
        let filter = soup.map { ["soup": $0] } ?? [:]
        return try journal.withState(asOf: asOf ?? UInt64.max) { state, sequence in
            var projections: [String: JSONValue] = [:]
            for projection in journal.projections {
                projections[projection.name] = try projection.describeState(in: state, filter: filter)
            }
            return ["asOf": .number(JSONNumber(Int64(sequence))), "projections": .object(projections)]
        }
    }
}
