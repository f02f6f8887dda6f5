public import Determinism
public import LosslessJSON
import Synchronization

/// The control plane as Swift calls, for tests and embedders that run the simulator in-process.
/// Each does what the matching `/__simulator/` request does (see docs/simulator.md).
extension SalesforceSimulator {
    /// Restores the initial data, tokens, clock, cursors, faults and request log.
    public func reset() {
        state.withLock { $0.reset() }
    }

    /// Moves the simulator clock (negative values move it back), by at most
    /// ``clockAdvanceSecondsMax`` in either direction per call.
    public func advanceClock(seconds: Int64) {
        let bounded = min(max(seconds, -Self.clockAdvanceSecondsMax), Self.clockAdvanceSecondsMax)
        state.withLock { $0.clockOffsetMilliseconds += bounded * 1000 }
    }

    /// The largest clock move per call: a century, far beyond any test, small enough that
    /// repeated moves cannot overflow the millisecond clock.
    public static let clockAdvanceSecondsMax: Int64 = 100 * 365 * 86_400

    /// Replaces the fault plan; ``FaultPlan/none`` removes all faults.
    public func setFaultPlan(_ plan: FaultPlan) {
        state.withLock { $0.setFaultPlan(plan) }
    }

    /// Makes every access token invalid; the next data call answers 401.
    public func expireAccessTokens() {
        state.withLock { $0.accessTokens.removeAll() }
    }

    /// Also refuses the refresh token, so a refresh answers `invalid_grant`.
    public func revokeRefreshToken() {
        state.withLock { state in
            state.accessTokens.removeAll()
            state.refreshTokenRevoked = true
        }
    }

    /// The Salesforce requests received, newest last (see docs/simulator.md for the keys).
    public func requestLog() -> [JSONValue] {
        state.withLock { $0.requestLog }
    }

    /// Creates (when `id` is `nil`) or updates a record as another user would: the mod dates
    /// advance, but recent items, the request log and API usage do not change.
    ///
    /// - Parameters:
    ///   - type: the sObject type, for example `Account`.
    ///   - id: the record to update; `nil` creates a record with a new id.
    ///   - fields: the fields to set; on an update, the fields not named keep their values.
    ///   - modifiedAt: the start of the transaction that commits the write now: the record's
    ///     `LastModifiedDate` and `SystemModstamp` (truncated to the second), which Salesforce
    ///     takes from a transaction's start, so a long transaction commits a record dated
    ///     before records already read. `nil`: the clock's time. It must not be after ``now``.
    /// - Returns: The record id.
    /// - Throws: ``SimulatorError/Code/rejectedWrite`` with Salesforce's message, or for a
    ///   `modifiedAt` in the future.
    @discardableResult
    public func write(
        type: String, id: String? = nil, fields: [String: JSONValue], modifiedAt: WallTime? = nil
    ) throws -> String {
        let result = state.withLock { state -> Result<String, APIFailure> in
            do throws(APIFailure) {
                return .success(try state.adminWrite(type: type, id: id, fields: fields, modifiedAt: modifiedAt))
            } catch {
                return .failure(error)
            }
        }
        return try Self.unwrap(result)
    }

    /// Deletes a record as another user would.
    ///
    /// - Throws: ``SimulatorError/Code/rejectedWrite`` when it does not exist or is deleted.
    public func delete(type: String, id: String) throws {
        let result = state.withLock { state -> Result<Void, APIFailure> in
            do throws(APIFailure) {
                return .success(try state.adminDelete(type: type, id: id))
            } catch {
                return .failure(error)
            }
        }
        try Self.unwrap(result)
    }

    private static func unwrap<T>(_ result: Result<T, APIFailure>) throws -> T {
        switch result {
        case .success(let value): return value
        case .failure(let failure):
            throw SimulatorError(
                code: .rejectedWrite, message: "\(failure.errorCode): \(failure.message)", cause: failure)
        }
    }
}
