public import EventJournal
import SyncCore

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

    /// Whether `entry` is exactly what the child appended at its sequence.
    public static func matches(_ entry: JournalEntry) -> Bool {
        let expected = draft(for: entry.sequence)
        return entry.kind == expected.kind && entry.header == expected.header && entry.payload == expected.payload
            && entry.payloadFormat == expected.payloadFormat
    }
}
