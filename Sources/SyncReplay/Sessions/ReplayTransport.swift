public import SalesforceAPI
import Synchronization

/// A transport that answers from a recording and checks that each request is the recorded one.
///
/// The first request that differs from the recording (in method, path, query, headers or body,
/// compared after redaction) is kept as ``divergence`` and answered with a failure, as is every
/// request after it. The error is kept rather than only thrown because the client turns
/// transport errors into retries and FAILED syncs: the session runner asks for it after each
/// operation.
public final class ReplayTransport: HTTPTransport {
    private struct State {
        var next = 0
        var divergence: SessionReplayError?
    }

    private let recorded: [RecordedExchange]
    private let state = Mutex(State())

    /// Creates a transport that serves `exchanges` in order.
    public init(_ exchanges: [RecordedExchange]) {
        recorded = exchanges
    }

    /// The first difference from the recording, if any.
    public var divergence: SessionReplayError? {
        state.withLock { $0.divergence }
    }

    /// How many recorded exchanges have been served.
    public var servedCount: Int {
        state.withLock { $0.next }
    }

    /// Answers `request` with the next recorded exchange when it is the recorded request.
    ///
    /// - Throws: the recorded SalesforceAPI `TransportFailure` for a request that got no answer, or the
    ///   ``SessionReplayError`` of the first divergence.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let live = RecordedExchange.Request(request)
        let exchange = try state.withLock { state throws(SessionReplayError) -> RecordedExchange in
            if let divergence = state.divergence { throw divergence }
            let number = state.next + 1
            guard state.next < recorded.count else {
                let error = SessionReplayError(
                    .requestDiverged,
                    "request \(number) (\(live.method) \(live.path)) was sent, but the recording ends after "
                        + "\(recorded.count) requests")
                state.divergence = error
                throw error
            }
            let exchange = recorded[state.next]
            if let difference = exchange.request.firstDifference(from: live) {
                let error = SessionReplayError(
                    .requestDiverged,
                    "request \(number) differs from the recording (\(exchange.request.method) "
                        + "\(exchange.request.path)): \(difference)")
                state.divergence = error
                throw error
            }
            state.next += 1
            return exchange
        }
        return try exchange.outcome()
    }

    /// Throws when the replay diverged, or when recorded requests were never sent.
    public func checkFinished() throws {
        if let divergence { throw divergence }
        let served = servedCount
        guard served == recorded.count else {
            let next = recorded[served].request
            throw SessionReplayError(
                .exchangesLeftOver,
                "the engine stopped after \(served) requests; the recording continues with request \(served + 1) "
                    + "(\(next.method) \(next.path))")
        }
    }
}
