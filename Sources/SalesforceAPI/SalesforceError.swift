/// A failed Salesforce call: the server's answer, a failed token refresh, or no answer at all.
///
/// Match on ``code`` to branch:
///
/// ```swift
/// do {
///     _ = try await client.retrieve(type: "Account", id: id, fields: ["Name"])
/// } catch SalesforceError.Code.sessionRevoked {
///     // log the user out
/// } catch let error as SalesforceError where error.httpStatus == 404 {
///     // deleted on the server
/// }
/// ```
public struct SalesforceError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: Hashable, Sendable {
            case server
            case network
            case timeout
            case sessionRevoked
            case authenticationFailed
            case invalidResponse
            case invalidRequest
        }

        private let kind: Kind

        /// The server answered with an error status; ``SalesforceError/errors`` holds its body.
        public static let server = Code(kind: .server)
        /// No answer arrived: the connection failed or dropped.
        public static let network = Code(kind: .network)
        /// No answer arrived in time.
        public static let timeout = Code(kind: .timeout)
        /// The refresh token was rejected (`invalid_grant`): the user must log in again.
        public static let sessionRevoked = Code(kind: .sessionRevoked)
        /// The access token was rejected and could not be refreshed for another reason.
        public static let authenticationFailed = Code(kind: .authenticationFailed)
        /// The server answered 2xx with a body this client cannot read.
        public static let invalidResponse = Code(kind: .invalidResponse)
        /// The request was refused before sending, for example a batch over its limit.
        public static let invalidRequest = Code(kind: .invalidRequest)

        /// The code's name.
        public var description: String { "\(kind)" }

        /// Lets `catch SalesforceError.Code.sessionRevoked` match a thrown error.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? SalesforceError)?.code == code
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// A readable summary: the first server message, or the transport's reason.
    public var message: String
    /// The HTTP status of the answer, or `nil` when no answer arrived.
    public var httpStatus: Int?
    /// The server's `[{errorCode, message, fields}]` array (empty when the body had none).
    public var errors: [SalesforceErrorDetail]
    /// The raw response body, kept so callers can store it verbatim (Mobile Sync's
    /// `__last_error__`).
    public var body: [UInt8]
    /// The underlying error, if any.
    public var cause: (any Error)?

    /// Creates an error.
    public init(
        code: Code, message: String, httpStatus: Int? = nil, errors: [SalesforceErrorDetail] = [],
        body: [UInt8] = [], cause: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
        self.errors = errors
        self.body = body
        self.cause = cause
    }

    /// The first `errorCode` of the server's array, if any.
    public var errorCode: String? { errors.first?.errorCode }

    /// Whether trying the same idempotent request again may succeed (5xx, timeouts, dropped
    /// connections).
    public var isRetryable: Bool {
        switch code {
        case .network, .timeout: return true
        case .server: return (httpStatus ?? 0) >= 500
        default: return false
        }
    }

    /// The code, status and message.
    public var description: String {
        let status = httpStatus.map { " HTTP \($0)" } ?? ""
        let detail = errorCode.map { " \($0):" } ?? ""
        return "SalesforceError(\(code)\(status))\(detail) \(message)"
    }
}
