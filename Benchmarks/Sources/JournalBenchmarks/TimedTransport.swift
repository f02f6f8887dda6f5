import BenchmarkSupport
import SalesforceAPI
import Synchronization

/// Counts requests and adds up the time spent waiting for their answers.
final class TimedTransport: HTTPTransport {
    private let inner: any HTTPTransport
    private let totals = Mutex<(requests: Int, seconds: Double)>((0, 0))

    init(_ inner: any HTTPTransport) {
        self.inner = inner
    }

    var requests: Int { totals.withLock { $0.requests } }
    var seconds: Double { totals.withLock { $0.seconds } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let start = ContinuousClock.now
        defer {
            let elapsed = (ContinuousClock.now - start).inSeconds
            totals.withLock {
                $0.requests += 1
                $0.seconds += elapsed
            }
        }
        return try await inner.send(request)
    }
}
