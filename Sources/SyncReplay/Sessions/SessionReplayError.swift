public import EventJournal

/// Why a recorded session could not be replayed, or how its replay differed from the recording.
///
/// ```swift
/// do { try await RecordedSession(directory: url).replay() }
/// catch SessionReplayError.Code.requestDiverged { … }
/// ```
public struct SessionReplayError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for code that reacts to it.
    public var code: Code
    /// What went wrong, for people: one sentence naming the file, request or projection key.
    public var message: String
    /// The underlying error, such as a `JournalError` from the import.
    public var cause: (any Error)?
    /// Where in SyncJournal the error was raised.
    public var location: SourceCodeLocation

    /// Creates an error.
    public init(_ code: Code, _ message: String, cause: (any Error)? = nil, fileID: String = #fileID, line: Int = #line)
    {
        self.code = code
        self.message = message
        self.cause = cause
        self.location = SourceCodeLocation(fileID: fileID, line: line)
    }

    /// The message.
    public var description: String {
        message
    }

    /// Whether the replay ran and produced something other than the recording (as opposed to
    /// the case's files being missing or malformed). An operation that fails on replay counts:
    /// it succeeded when the session was recorded.
    public var isDivergence: Bool {
        code != .missingFile && code != .malformedFile
    }

    /// The kind of a ``SessionReplayError``. New codes may be added; switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case missingFile, malformedFile, requestDiverged, exchangesLeftOver, journalDiverged, projectionDiverged,
                operationFailed
        }

        private let value: Value

        /// The case directory or one of its files does not exist.
        public static let missingFile = Code(value: .missingFile)
        /// A file of the case cannot be parsed, fails its checksum, or is not in canonical form.
        public static let malformedFile = Code(value: .malformedFile)
        /// The engine sent a request other than the recorded one at that point.
        public static let requestDiverged = Code(value: .requestDiverged)
        /// The engine finished without sending every recorded request.
        public static let exchangesLeftOver = Code(value: .exchangesLeftOver)
        /// The replayed journal's export differs from `session.jsonl`.
        public static let journalDiverged = Code(value: .journalDiverged)
        /// The replayed projections differ from `expected-projections.json`.
        public static let projectionDiverged = Code(value: .projectionDiverged)
        /// An operation of the session threw (an unknown soup, a refused sync).
        public static let operationFailed = Code(value: .operationFailed)

        /// The code's name, such as `requestDiverged`.
        public var description: String {
            value.rawValue
        }

        /// Matches an error against a code: `catch SessionReplayError.Code.requestDiverged`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? SessionReplayError)?.code == code
        }
    }
}
