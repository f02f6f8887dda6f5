/// Why a byte sequence is not a JSON document.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The byte offset where parsing stopped.
    public var offset: Int
    /// What was wrong there.
    public var reason: String

    /// Creates an error at `offset`.
    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String {
        "malformed JSON at byte \(offset): \(reason)"
    }
}
