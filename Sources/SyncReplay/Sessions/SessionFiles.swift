import Foundation

/// The files of a recorded case, `Journals/<area>/<case>/`, and the one way each is encoded.
///
/// Replays compare bytes, so every file is written by exactly one encoder configuration,
/// spelled out here rather than left to `JSONEncoder`'s defaults.
public enum SessionFiles {
    /// The clock and the operations (``SessionScript``).
    public static let operations = "operations.json"
    /// The requests and answers, one ``RecordedExchange`` per line.
    public static let exchanges = "exchanges.jsonl"
    /// The journal, in `journal-replay export` format.
    public static let session = "session.jsonl"
    /// The final projections (``ProjectionSnapshot``).
    public static let expectedProjections = "expected-projections.json"

    /// Every file a case directory must hold.
    public static let all = [operations, exchanges, session, expectedProjections]

    /// Sorted keys, two-space indentation, slashes unescaped: readable files with stable bytes.
    static func prettyEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return encoder
    }

    /// Sorted keys on one line, for JSON-lines files.
    static func compactEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
