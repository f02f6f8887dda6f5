public import Foundation

/// A data file that cannot be what LMDB would map: found by ``DataFileHeader/read(from:)``
/// before the file is opened, or left behind as a ``DamageNote`` by a process that met it.
///
/// Mapping such a file can end the process instead of failing a call: reading a page past the
/// end of a truncated file raises `SIGBUS`, and a zeroed page makes LMDB's own checks call
/// `abort()`. Callers that can rebuild the file (derived data) do so instead of opening it.
public struct DataFileDamage: Error, Sendable, Hashable, CustomStringConvertible {
    /// The damaged data file.
    public var file: URL
    /// What is wrong with it, in one sentence without a final period.
    public var reason: String

    /// A damage report for `file`.
    public init(file: URL, reason: String) {
        self.file = file
        self.reason = reason
    }

    public var description: String {
        "\(file.path) is damaged: \(reason)"
    }
}
