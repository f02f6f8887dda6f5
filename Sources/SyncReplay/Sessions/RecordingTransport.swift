public import SalesforceAPI
import Synchronization

/// A transport that passes every request to another and records the exchange, redacted.
///
/// Wrap the simulator's transport in it to record a session:
///
/// ```swift
/// let recorder = RecordingTransport(SimulatorTransport(simulator))
/// // … run the session with a client on `recorder` …
/// let lines = try recorder.exchanges.map { try $0.line() }
/// ```
public final class RecordingTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let recorded = Mutex<[RecordedExchange]>([])

    /// Creates a recorder in front of `base`.
    public init(_ base: any HTTPTransport) {
        self.base = base
    }

    /// The exchanges so far, in the order the requests were sent.
    public var exchanges: [RecordedExchange] {
        recorded.withLock { $0 }
    }

    /// Sends `request` through the wrapped transport and records it with its answer or failure.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let recordedRequest = RecordedExchange.Request(request)
        do {
            let response = try await base.send(request)
            append(recordedRequest, RecordedExchange.Response(response, path: recordedRequest.path), nil)
            return response
        } catch let failure as TransportFailure {
            append(
                recordedRequest, nil, RecordedExchange.Failure(isTimeout: failure.isTimeout, message: failure.message))
            throw failure
        }
    }

    private func append(
        _ request: RecordedExchange.Request, _ response: RecordedExchange.Response?,
        _ failure: RecordedExchange.Failure?
    ) {
        recorded.withLock { exchanges in
            exchanges.append(
                RecordedExchange(number: exchanges.count + 1, request: request, response: response, failure: failure))
        }
    }
}
