/// Why the inspector could not start or answer: a code to match and a one-line message.
///
/// ```swift
/// do { _ = try await InspectorServer.start(store, token: token, logger: logger) }
/// catch let error as InspectorError where error.code == .serverFailed { … }
/// ```
public struct InspectorError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case serverFailed, badRequest, notFound, forbidden, invalidToken
        }

        private let value: Value

        /// The server could not bind its address or stopped unexpectedly.
        public static let serverFailed = Code(value: .serverFailed)
        /// A request named a page or parameter the inspector cannot answer (HTTP 400).
        public static let badRequest = Code(value: .badRequest)
        /// A request named a page, soup, sync or record that does not exist (HTTP 404).
        public static let notFound = Code(value: .notFound)
        /// A request without the right token or from another host (HTTP 403).
        public static let forbidden = Code(value: .forbidden)
        /// The access token given to the server is too short or not URL-safe.
        public static let invalidToken = Code(value: .invalidToken)

        /// The code's name.
        public var description: String { "\(value)" }
    }

    /// What kind of failure this is.
    public var code: Code
    /// One sentence saying what went wrong.
    public var message: String
    /// The underlying error, when there is one.
    public var cause: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: what kind of failure this is.
    ///   - message: one sentence saying what went wrong.
    ///   - cause: the underlying error, when there is one.
    public init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The message.
    public var description: String { message }
}

extension InspectorError.Code {
    /// Matches an error against a code: `catch InspectorError.Code.forbidden`.
    ///
    /// - Parameters:
    ///   - code: the code to match.
    ///   - error: the error thrown.
    /// - Returns: whether `error` is an ``InspectorError`` with `code`.
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? InspectorError)?.code == code
    }
}
