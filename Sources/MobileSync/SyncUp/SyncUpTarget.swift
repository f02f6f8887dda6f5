public import LosslessJSON
import SalesforceAPI

/// Where a sync up sends local changes: Mobile Sync's sync-up target, in Swift async form.
///
/// A target answers for one record at a time through ``createOnServer(objectType:fields:)``,
/// ``upsertOnServer(objectType:externalIdField:externalId:fields:)``,
/// ``updateOnServer(objectType:id:fields:)``, ``deleteOnServer(objectType:id:)`` and
/// ``isNewerThanServer(_:)``, exactly the seed document's operations. Targets that send many
/// records per request (composite batch, sObject Collections) also implement the batch form,
/// ``syncUp(_:fieldlist:)`` and ``areNewerThanServer(_:)``; the default batch form calls the
/// one-record operations in order, so a custom target only needs those.
///
/// Server refusals of one record (HTTP 4xx with Salesforce's error body) are outcomes, not
/// errors: they go to the record's `__last_error__` and the sync still ends DONE. Anything that
/// leaves the result unknown — no answer, a 5xx after retries, an unreadable body — is thrown,
/// and the sync ends FAILED.
public protocol SyncUpTarget: Sendable {
    /// The record field holding the server id (`Id` by default).
    var idFieldName: String { get }
    /// The record field holding the last modification time (`LastModifiedDate` by default).
    var modificationDateFieldName: String { get }
    /// The fields sent on create; `nil` uses the sync options' field list.
    var createFieldlist: [String]? { get }
    /// The fields sent on update; `nil` uses the sync options' field list.
    var updateFieldlist: [String]? { get }
    /// The field used to upsert a locally created record that already has a value for it.
    var externalIdFieldName: String? { get }
    /// The most records one ``syncUp(_:fieldlist:)`` call takes.
    var maxBatchSize: Int { get }
    /// A server field that receives the local id on create, so that a create whose answer was
    /// lost can be found again instead of being sent twice; `nil` (the default) for none.
    var markerFieldName: String? { get }

    /// Creates a record on the server and returns its id.
    func createOnServer(objectType: String, fields: [String: JSONValue]) async throws -> String
    /// Creates or updates the server record whose `externalIdField` is `externalId`; returns its id.
    func upsertOnServer(
        objectType: String, externalIdField: String, externalId: String, fields: [String: JSONValue]
    ) async throws -> String
    /// Updates a server record.
    func updateOnServer(objectType: String, id: String, fields: [String: JSONValue]) async throws
    /// Deletes a server record.
    func deleteOnServer(objectType: String, id: String) async throws
    /// Whether the local copy may overwrite the server's under LEAVE_IF_CHANGED.
    func isNewerThanServer(_ record: JSONValue) async throws -> Bool

    /// Sends up to ``maxBatchSize`` dirty records and returns one outcome per record, in order.
    ///
    /// - Parameters:
    ///   - records: the dirty records, at most ``maxBatchSize`` of them.
    ///   - fieldlist: the sync options' field list, used when the target has no create or
    ///     update list of its own.
    func syncUp(_ records: [JSONValue], fieldlist: [String]?) async throws -> [SyncUpOutcome]
    /// For each record, whether it may overwrite the server's copy under LEAVE_IF_CHANGED.
    func areNewerThanServer(_ records: [JSONValue]) async throws -> [Bool]
    /// Which of the soup's dirty records this run sends (Mobile SDK's
    /// `getIdsOfRecordsToSyncUp`): every one by default. A record left out stays dirty for a
    /// later run. What was sent is journaled, one intent per upload, so a replay sends the same.
    ///
    /// - Parameter dirtyRecords: the soup's dirty records, by `_soupEntryId`.
    /// - Returns: the records to send, a subset of `dirtyRecords`; others returned are ignored.
    func recordsToSyncUp(_ dirtyRecords: [JSONValue]) async throws -> [JSONValue]
}

extension SyncUpTarget {
    /// No marker field.
    public var markerFieldName: String? { nil }

    /// Every dirty record.
    public func recordsToSyncUp(_ dirtyRecords: [JSONValue]) async throws -> [JSONValue] { dirtyRecords }

    /// One record at a time, in order, as Mobile Sync's single-record sync up does.
    public func syncUp(_ records: [JSONValue], fieldlist: [String]?) async throws -> [SyncUpOutcome] {
        var outcomes: [SyncUpOutcome] = []
        outcomes.reserveCapacity(records.count)
        for record in records {
            outcomes.append(try await syncUpOne(record, fieldlist: fieldlist))
        }
        return outcomes
    }

    /// One ``isNewerThanServer(_:)`` call per record.
    public func areNewerThanServer(_ records: [JSONValue]) async throws -> [Bool] {
        var answers: [Bool] = []
        answers.reserveCapacity(records.count)
        for record in records {
            answers.append(try await isNewerThanServer(record))
        }
        return answers
    }

    private func syncUpOne(_ record: JSONValue, fieldlist: [String]?) async throws -> SyncUpOutcome {
        let action = SyncUpAction(record: record)
        guard SyncUpAction.requiresServerCall(record) else { return action == .delete ? .deleted : .skipped }
        guard let objectType = SyncUpFields.objectType(of: record) else { return SyncUpFields.missingObjectType }
        do {
            switch action {
            case .create:
                let fields = try SyncUpFields.fields(record, for: .create, target: self, fieldlist: fieldlist)
                if let (field, value) = SyncUpFields.externalId(of: record, target: self) {
                    return .created(
                        serverId: try await upsertOnServer(
                            objectType: objectType, externalIdField: field, externalId: value, fields: fields))
                }
                return .created(serverId: try await createOnServer(objectType: objectType, fields: fields))
            case .update:
                let fields = try SyncUpFields.fields(record, for: .update, target: self, fieldlist: fieldlist)
                guard let id = record[idFieldName]?.string else { return SyncUpFields.missingId(idFieldName) }
                try await updateOnServer(objectType: objectType, id: id, fields: fields)
                return .updated
            case .delete:
                guard let id = record[idFieldName]?.string else { return SyncUpFields.missingId(idFieldName) }
                try await deleteOnServer(objectType: objectType, id: id)
                return .deleted
            case .none:
                return .skipped
            }
        } catch let error as SalesforceError {
            guard let refusal = SyncUpFields.refusal(error) else { throw error }
            return SyncUpFields.outcome(ofRefusal: refusal.error, isNotFound: refusal.isNotFound, action: action)
        }
    }
}
