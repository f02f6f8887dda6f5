public import EventJournal
import LosslessJSON

/// The entries the crash-safety child process appends, as a pure function of their sequence,
/// so the parent can check every surviving entry after a SIGKILL.
public enum CrashWriterPayload {
    /// The kinds the child cycles through.
    public static let kinds: [JournalEntry.Kind] = ["crash.alpha", "crash.beta", "crash.gamma"]

    /// The draft for the entry that will get `sequence`.
    public static func draft(for sequence: UInt64) -> JournalEntry.Draft {
        let kind = kinds[Int(sequence % UInt64(kinds.count))]
        let padding = String(repeating: "x", count: Int(sequence % 200))
        return JournalEntry.Draft(
            kind: kind, header: ["n": .integer(Int64(sequence))],
            json: ["n": .number(JSONNumber(Int64(bitPattern: sequence))), "pad": .string(padding)])
    }

    /// The retention of the child that compacts as it appends: its newest 200 entries.
    public static let compactingRetention = RetentionPolicy(entryCount: 200)

    /// How many entries of each kind the child appended in `1...last`: what its kind counts
    /// hold, compacted or not.
    public static func kindCounts(through last: UInt64) -> [String: UInt64] {
        var counts: [String: UInt64] = [:]
        for (index, kind) in kinds.enumerated() {
            // Sequences s in 1...last with s % count == index.
            let count = UInt64(kinds.count)
            let first = index == 0 ? count : UInt64(index)
            counts[kind.rawValue] = last >= first ? (last - first) / count + 1 : 0
        }
        return counts.filter { $0.value > 0 }
    }

    /// Whether `entry` is exactly what the child appended at its sequence.
    public static func matches(_ entry: JournalEntry) -> Bool {
        let expected = draft(for: entry.sequence)
        return entry.kind == expected.kind && entry.header == expected.header && entry.payload == expected.payload
            && entry.payloadFormat == expected.payloadFormat
    }
}
