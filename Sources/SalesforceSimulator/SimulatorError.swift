/// A failure to set up the simulator: an unreadable data file or a server that cannot start.
public struct SimulatorError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: Hashable, Sendable {
            case invalidData
            case serverFailed
            case rejectedWrite
        }

        private let kind: Kind

        /// The data file is not valid JSON or does not follow the format in docs/simulator.md.
        public static let invalidData = Code(kind: .invalidData)
        /// The HTTP server could not bind or stopped unexpectedly.
        public static let serverFailed = Code(kind: .serverFailed)
        /// An out-of-band write was refused (unknown type or field, bad value, missing record);
        /// the message carries Salesforce's error.
        public static let rejectedWrite = Code(kind: .rejectedWrite)

        /// The code's name.
        public var description: String { "\(kind)" }

        /// Lets `catch SimulatorError.Code.invalidData` match a thrown error.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? SimulatorError)?.code == code
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// A readable explanation.
    public var message: String
    /// The underlying error, if any.
    public var cause: (any Error)?

    /// Creates an error.
    public init(code: Code, message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The code and message.
    public var description: String { "SimulatorError(\(code)): \(message)" }
}
