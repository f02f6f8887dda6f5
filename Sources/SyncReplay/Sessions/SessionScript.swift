public import Foundation

/// The contents of a case's `operations.json`: the store's clock and the operations to perform.
///
/// Everything a replay needs besides the server's answers is here. The simulator's initial
/// org is not: replays never reach a server, and recording takes it from ``SessionCatalog``.
public struct SessionScript: Codable, Hashable, Sendable {
    /// The version of this file's format.
    public static let formatVersion = 1

    /// The version the file was written with; see ``formatVersion``.
    public var format: Int
    /// The store clock's first reading, in milliseconds since 1970.
    public var clockStartMilliseconds: Int64
    /// How far the store clock moves at each reading, in milliseconds.
    public var clockTickMilliseconds: Int64
    /// What the session does, in order.
    public var operations: [SessionOperation]

    /// Creates a script.
    public init(
        clockStartMilliseconds: Int64 = 1_800_000_000_000, clockTickMilliseconds: Int64 = 1,
        operations: [SessionOperation]
    ) {
        format = Self.formatVersion
        self.clockStartMilliseconds = clockStartMilliseconds
        self.clockTickMilliseconds = clockTickMilliseconds
        self.operations = operations
    }

    /// The file's canonical bytes: sorted keys, indented, no escaped slashes, a final newline.
    public func encoded() throws -> Data {
        var data = try SessionFiles.prettyEncoder().encode(self)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// Reads a script, refusing one that is not in canonical form.
    ///
    /// Canonical form matters because replay compares files byte for byte: a key the decoder
    /// would ignore, or an edit that only changes spacing, must not pass unnoticed.
    /// - Throws: ``SessionReplayError/Code/malformedFile`` naming the file and the problem.
    public static func decode(_ data: Data, file: String = SessionFiles.operations) throws -> SessionScript {
        let script: SessionScript
        do {
            script = try JSONDecoder().decode(SessionScript.self, from: data)
        } catch {
            throw SessionReplayError(.malformedFile, "\(file) is not a valid session script: \(error)")
        }
        guard script.format == formatVersion else {
            throw SessionReplayError(
                .malformedFile, "\(file) has format \(script.format); this build reads \(formatVersion)")
        }
        guard try script.encoded() == data else {
            throw SessionReplayError(
                .malformedFile, "\(file) is not in canonical form (sorted keys, two-space indent); re-record the case")
        }
        return script
    }
}
