import Determinism
import Foundation
public import Logging
import LosslessJSON
import Synchronization

/// A client for the Salesforce REST API: queries, sObject and composite calls, with token
/// refresh and retries.
///
/// ```swift
/// let client = SalesforceClient(
///     credentials: SalesforceCredentials(instanceURL: url, accessToken: token, refreshToken: refresh),
///     logger: logger)
/// var page = try await client.query("SELECT Id, Name FROM Account", batchSize: 500)
/// while let next = page.nextRecordsURL { page = try await client.queryMore(nextRecordsURL: next) }
/// ```
///
/// Record JSON is handed back as SyncCore's `JSONValue` exactly as received, so no field is lost or
/// reformatted. On a 401 (or a 403 `Bad_OAuth_Token`) the client refreshes the access token once
/// with the refresh token, reports the new credentials to `onCredentialsRefresh`, and replays the
/// request once. Idempotent requests are retried per ``RetryPolicy``.
public final class SalesforceClient: Sendable {
    /// The API version used when none is given.
    public static let apiVersionDefault = "v66.0"

    /// The API version in paths, e.g. `v66.0`.
    public let apiVersion: String

    let transport: any HTTPTransport
    let clock: any Clock<Duration>
    let retryPolicy: RetryPolicy
    let logger: Logger
    let onCredentialsRefresh: (@Sendable (SalesforceCredentials) async -> Void)?
    let state: Mutex<State>

    struct State {
        var credentials: SalesforceCredentials
        var random: SplitMix64
        /// The refresh in flight and the token it replaces: every request refused with that
        /// token awaits it.
        var refresh: (replacing: String, task: Task<Void, any Error>)?
    }

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - credentials: The instance URL and tokens.
    ///   - apiVersion: The API version, `v66.0` by default.
    ///   - transport: How requests are sent; `URLSession` by default.
    ///   - retryPolicy: How idempotent requests are retried.
    ///   - clock: The clock backoff sleeps on (inject a test clock to avoid real waits).
    ///   - randomSeed: Seeds the jitter generator, so retries are reproducible.
    ///   - logger: Where the client logs requests, retries and refreshes.
    ///   - onCredentialsRefresh: Called with the new credentials after a refresh, so the app can
    ///     persist them.
    public init(
        credentials: SalesforceCredentials,
        apiVersion: String = apiVersionDefault,
        transport: any HTTPTransport = URLSessionTransport(),
        retryPolicy: RetryPolicy = .standard,
        clock: any Clock<Duration> = ContinuousClock(),
        randomSeed: UInt64 = 0,
        logger: Logger,
        onCredentialsRefresh: (@Sendable (SalesforceCredentials) async -> Void)? = nil
    ) {
        self.apiVersion = apiVersion
        self.transport = transport
        self.retryPolicy = retryPolicy
        self.clock = clock
        self.logger = logger
        self.onCredentialsRefresh = onCredentialsRefresh
        state = Mutex(State(credentials: credentials, random: SplitMix64(seed: randomSeed)))
    }

    /// The credentials in use (they change after a refresh).
    public var credentials: SalesforceCredentials {
        state.withLock { $0.credentials }
    }

    /// The data API base path, `/services/data/vNN.N`.
    public var dataPath: String { "/services/data/\(apiVersion)" }
}

// MARK: - Sending

extension SalesforceClient {
    /// A request before credentials and the instance URL are applied.
    struct APIRequest: Sendable {
        var method: String
        /// An absolute path (`/services/...`).
        var path: String
        var query: [(String, String)] = []
        var headers: [String: String] = [:]
        var body: JSONValue?
        /// Whether sending it twice has the same effect as sending it once.
        var isIdempotent: Bool
    }

    /// Sends a request with authentication, one token refresh, and retries; returns a 2xx answer.
    func perform(_ request: APIRequest) async throws -> TransportResponse {
        var hasRefreshed = false
        var retry = 0
        while true {
            let credentials = self.credentials
            let outgoing = try makeTransportRequest(request, credentials: credentials)
            logger.debug(
                "Salesforce request",
                metadata: ["salesforce.method": "\(request.method)", "salesforce.path": "\(request.path)"])
            let response: TransportResponse
            do {
                response = try await transport.send(outgoing)
            } catch {
                let failure = Self.transportError(error)
                guard request.isIdempotent, retry + 1 < retryPolicy.attemptCountMax else { throw failure }
                retry += 1
                try await backOff(beforeRetry: retry, after: failure)
                continue
            }
            if Self.needsRefresh(response, path: request.path) {
                guard hasRefreshed || credentials.refreshToken == nil else {
                    hasRefreshed = true
                    try await refreshOnce(replacing: credentials.accessToken)
                    continue
                }
                // No refresh token, or a fresh token refused too: the server will not let us
                // in, which callers (msync's exit status 4) tell apart from other refusals.
                var refusal = Self.serverError(response)
                refusal.code = .authenticationFailed
                throw refusal
            }
            if (200..<300).contains(response.status) { return response }
            let failure = Self.serverError(response)
            guard request.isIdempotent, failure.isRetryable, retry + 1 < retryPolicy.attemptCountMax else {
                throw failure
            }
            retry += 1
            try await backOff(beforeRetry: retry, after: failure)
        }
    }

    /// Refreshes the access token once for every request that `staleToken` failed: the first
    /// caller starts the refresh, callers during it await the same one, and a caller whose token
    /// was already replaced just sends again with the new one (as Mobile SDK shares one refresh
    /// between concurrent requests, so a refresh-token rotation is never raced).
    func refreshOnce(replacing staleToken: String) async throws {
        let refresh: Task<Void, any Error>? = state.withLock { state in
            guard state.credentials.accessToken == staleToken else { return nil }
            if let inFlight = state.refresh, inFlight.replacing == staleToken { return inFlight.task }
            let started = Task {
                defer {
                    self.state.withLock { state in
                        if state.refresh?.replacing == staleToken { state.refresh = nil }
                    }
                }
                try await self.refreshAccessToken()
            }
            state.refresh = (staleToken, started)
            return started
        }
        try await refresh?.value
    }

    /// Sends a request and parses its JSON body.
    func performJSON(_ request: APIRequest) async throws -> JSONValue {
        try Self.json(of: try await perform(request))
    }

    /// The body of `response` as JSON.
    static func json(of response: TransportResponse) throws -> JSONValue {
        do {
            return try JSONValue(parsing: response.body)
        } catch {
            throw SalesforceError(
                code: .invalidResponse, message: "The response body is not JSON: \(error)",
                httpStatus: response.status, body: Array(response.body), cause: error)
        }
    }

    private func backOff(beforeRetry retry: Int, after failure: SalesforceError) async throws {
        let fraction = state.withLock { state in
            Double(state.random.next() >> 11) / Double(UInt64(1) << 53)
        }
        let delay = retryPolicy.delay(beforeRetry: retry, fraction: fraction)
        logger.info(
            "Retrying Salesforce request",
            metadata: [
                "salesforce.retry": "\(retry)", "salesforce.delay": "\(delay)", "salesforce.error": "\(failure)",
            ])
        try await clock.sleep(for: delay)
    }

    func makeTransportRequest(_ request: APIRequest, credentials: SalesforceCredentials) throws -> TransportRequest {
        guard let url = Self.url(base: credentials.instanceURL, path: request.path, query: request.query) else {
            throw SalesforceError(code: .invalidRequest, message: "Cannot build a URL for path \(request.path)")
        }
        var headers = request.headers
        headers["Authorization"] = "Bearer \(credentials.accessToken)"
        headers["Accept"] = "application/json"
        var body: Data?
        if let json = request.body {
            headers["Content-Type"] = "application/json"
            body = Data(json.serialized())
        }
        return TransportRequest(method: request.method, url: url, headers: headers, body: body)
    }

    /// Whether the answer means "the access token is no longer valid": any 401, or a 403 whose
    /// body is `Bad_OAuth_Token` (what `/services/oauth2/*` answers).
    static func needsRefresh(_ response: TransportResponse, path: String) -> Bool {
        if response.status == 401 { return true }
        return response.status == 403 && String(decoding: response.body, as: UTF8.self).contains("Bad_OAuth_Token")
    }

    static func transportError(_ error: any Error) -> SalesforceError {
        if let failure = error as? TransportFailure {
            return SalesforceError(
                code: failure.isTimeout ? .timeout : .network, message: failure.message, cause: failure)
        }
        return SalesforceError(code: .network, message: String(describing: error), cause: error)
    }

    static func serverError(_ response: TransportResponse) -> SalesforceError {
        let details = SalesforceErrorDetail.parse(body: response.body)
        let message =
            details.first?.message
            ?? String(decoding: response.body.prefix(500), as: UTF8.self)
        return SalesforceError(
            code: .server, message: message.isEmpty ? "HTTP \(response.status)" : message,
            httpStatus: response.status, errors: details, body: Array(response.body))
    }
}
