import Determinism
public import EventJournal
public import LosslessJSON

/// What `journal-replay info --json` prints about a store, shared with the web inspector.
public enum StoreSummary {
    /// The summary of `journal`: entries, kinds, time span, files, checkpoints and recovery.
    ///
    /// - Parameters:
    ///   - journal: the open store's journal.
    ///   - store: the store's path as the caller named it, echoed in the summary.
    /// - Returns: one JSON object.
    /// - Throws: what reading the journal or its files throws.
    public static func json(of journal: Journal, store: String) throws -> JSONValue {
        let statistics = try journal.statistics()
        let report = journal.openingReport
        return try journal.read { reader in
            let last = try reader.lastSequence
            let first = last > 0 ? try reader.entry(at: try reader.firstSequence) : nil
            let newest = last > 0 ? try reader.entry(at: last) : nil
            var kinds: [String: JSONValue] = [:]
            for (kind, count) in try reader.kindCounts() {
                kinds[kind.rawValue] = number(count)
            }
            return [
                "store": .string(store), "formatVersion": number(statistics.formatVersion),
                "encrypted": .bool(journal.isEncrypted),
                "lastSequence": number(last), "kinds": .object(kinds),
                // After compaction the last sequence counts every entry ever written; only
                // those from the horizon on are kept.
                "entriesWritten": number(last),
                "entriesKept": number(
                    last >= statistics.horizon.firstSequence ? last - statistics.horizon.firstSequence + 1 : 0),
                "firstTimestamp": first.map { .string($0.timestamp.salesforceFormat) } ?? .null,
                "lastTimestamp": newest.map { .string($0.timestamp.salesforceFormat) } ?? .null,
                "horizon": number(statistics.horizon.firstSequence),
                "fileBytes": number(statistics.fileBytes),
                "liveBytes": number(statistics.liveBytes),
                "journalFileBytes": number(statistics.journalFileBytes),
                "journalEntryBytes": number(statistics.journalEntryBytes),
                "projectionFileBytes": number(statistics.projectionFileBytes),
                "checkpoints": .array(statistics.checkpointSequences.map { number($0) }),
                "checkpointBytes": number(statistics.checkpointBytes),
                "projectionsUnsynced": .bool(statistics.projectionsHaveUnsyncedWrites),
                "projectionsOnOpen": .string(report.projections.description),
                "foldedOnOpen": number(report.foldedEntries),
            ]
        }
    }

    private static func number(_ value: some BinaryInteger) -> JSONValue {
        .number(JSONNumber(Int64(value)))
    }
}
