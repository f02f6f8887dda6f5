public import LosslessJSON
import Synchronization

extension SalesforceSimulator {
    /// The live (not deleted) records of `type`, in creation order, read directly: no request
    /// is logged, no fault applies, no API usage is counted. Tests and simulations use it to
    /// check the org's contents without disturbing what they observe.
    public func liveRecords(type: String) -> [[String: JSONValue]] {
        state.withLock { $0.store.records(of: type, includeDeleted: false) }
    }
}
