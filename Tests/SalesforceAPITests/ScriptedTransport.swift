import Foundation
import SalesforceAPI
import Synchronization

/// A transport that answers from a script and records what was sent, for wire-level checks that
/// need no server.
final class ScriptedTransport: HTTPTransport {
    enum Step: Sendable {
        case answer(Int, String, [String: String] = [:])
        case fail(TransportFailure)
    }

    private let state: Mutex<(steps: [Step], sent: [TransportRequest])>

    init(_ steps: [Step]) {
        state = Mutex((steps, []))
    }

    var sent: [TransportRequest] { state.withLock { $0.sent } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let step = state.withLock { state -> Step in
            state.sent.append(request)
            return state.steps.isEmpty ? .answer(500, "script exhausted") : state.steps.removeFirst()
        }
        switch step {
        case .answer(let status, let body, let headers):
            return TransportResponse(status: status, headers: headers, body: Data(body.utf8))
        case .fail(let failure):
            throw failure
        }
    }
}
