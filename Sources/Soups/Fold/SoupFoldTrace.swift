package import Determinism
package import EventJournal
package import LosslessJSON
import Synchronization

/// What a soup fold did to each record of one soup, step by step: the fold's own account of a
/// record's history, which `RecordHistory` (behind `blame` and the inspector) shows.
///
/// A ``SoupProjection`` made with a trace reports every record it writes or removes in the
/// traced soup, with the record as the fold left it. The reports come from the two places every
/// change of a record goes through, so no change can be missing from the account. A fold rule
/// adds why it wrote a record, or why it left one alone, with ``SoupState/explain(_:in:_:serverId:)``.
///
/// Tracing is for a fold into a scratch environment: the journal's own projections are made
/// without one and pay nothing for it.
package final class SoupFoldTrace: Sendable {
    /// One record's part in one entry's fold.
    package struct Step: Sendable {
        /// The entry folded.
        package var sequence: UInt64
        /// When the entry was appended.
        package var timestamp: WallTime
        /// The entry's kind.
        package var kind: JournalEntry.Kind
        /// The record's `_soupEntryId`.
        package var entryId: Int64
        /// The record as the fold left it; `nil` when the fold removed it (or it does not exist).
        package var record: JSONValue?
        /// Whether the fold wrote or removed the record, rather than only explaining it.
        package var changed: Bool
        /// Why, in a few words, when a rule said; `nil` for the soups' own entries.
        package var reason: String?
        /// The value of the record's id field the rule matched it by, when a rule said.
        package var serverId: String?
    }

    private struct State {
        var entry: (sequence: UInt64, timestamp: WallTime, kind: JournalEntry.Kind)?
        var steps: [Step] = []
    }

    /// The soup traced.
    package let soupName: String
    private let state = Mutex(State())

    /// A trace of the records of the soup named `soupName`.
    package init(soupName: String) {
        self.soupName = soupName
    }

    /// The steps so far, in fold order.
    package var steps: [Step] {
        state.withLock { $0.steps }
    }

    /// Starts the steps of `entry`.
    func begin(_ entry: JournalEntry) {
        state.withLock { $0.entry = (entry.sequence, entry.timestamp, entry.kind) }
    }

    /// Reports that the fold wrote the record `entryId` (`record` as stored) or removed it (`nil`).
    func changed(_ entryId: Int64, to record: JSONValue?) {
        state.withLock { state in
            guard let entry = state.entry else { return }
            state.steps.append(
                Step(
                    sequence: entry.sequence, timestamp: entry.timestamp, kind: entry.kind, entryId: entryId,
                    record: record, changed: true))
        }
    }

    /// Adds why the current entry's fold did what it did to the record `entryId`: to its last
    /// step in this entry, or as a step that changed nothing (the record `record` left as it was).
    func explain(_ entryId: Int64, record: JSONValue?, reason: String, serverId: String?) {
        state.withLock { state in
            guard let entry = state.entry else { return }
            // Only the current entry's steps, at the end, can match: a record left alone must not
            // cost a scan of every step before it.
            for index in state.steps.indices.reversed() {
                guard state.steps[index].sequence == entry.sequence else { break }
                guard state.steps[index].entryId == entryId else { continue }
                state.steps[index].reason = reason
                state.steps[index].serverId = serverId ?? state.steps[index].serverId
                return
            }
            state.steps.append(
                Step(
                    sequence: entry.sequence, timestamp: entry.timestamp, kind: entry.kind, entryId: entryId,
                    record: record, changed: false, reason: reason, serverId: serverId))
        }
    }
}
