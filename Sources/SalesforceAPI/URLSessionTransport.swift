// On Linux `URLSession` lives in FoundationNetworking, which the public initialiser exposes; on
// Apple platforms it is part of Foundation.
#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// The default ``HTTPTransport``: Foundation's `URLSession`, on Apple platforms and Linux.
public struct URLSessionTransport: HTTPTransport {
    /// How long one request may take before it counts as timed out.
    public static let requestTimeoutDefault: Duration = .seconds(60)

    private let session: URLSession
    private let timeout: Duration

    /// Creates a transport.
    ///
    /// - Parameters:
    ///   - session: The session to send through; an ephemeral session (no cookies, no cache)
    ///     when omitted, because Salesforce answers must never come from a cache.
    ///   - timeout: The per-request timeout.
    public init(session: URLSession? = nil, timeout: Duration = requestTimeoutDefault) {
        if let session {
            self.session = session
        } else {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            configuration.urlCache = nil
            configuration.httpCookieStorage = nil
            self.session = URLSession(configuration: configuration)
        }
        self.timeout = timeout
    }

    /// Sends the request through `URLSession`.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        urlRequest.timeoutInterval = Double(timeout.components.seconds)
        for (name, value) in request.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch let error as URLError {
            throw TransportFailure(isTimeout: error.code == .timedOut, message: error.localizedDescription)
        } catch {
            throw TransportFailure(isTimeout: false, message: String(describing: error))
        }
        guard let http = response as? HTTPURLResponse else {
            throw TransportFailure(isTimeout: false, message: "The response is not an HTTP response.")
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            headers[String(describing: name)] = String(describing: value)
        }
        return TransportResponse(status: http.statusCode, headers: headers, body: data)
    }
}
