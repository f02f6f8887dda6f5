public import LosslessJSON
public import SalesforceAPI

/// The batch sync-up target: up to 25 records per `POST /composite` request, sub-requests in
/// record order, `allOrNone` false (Mobile Sync's `BatchSyncUpTarget`).
///
/// Each record becomes the sub-request its single-record form would send; a sub-response of
/// 2xx is success, 404 means the server has no such record, and any other status refuses the
/// record with the first error of its body. LEAVE_IF_CHANGED asks the server once per record.
public struct CompositeSyncUpTarget: SyncUpTarget {
    public var idFieldName: String { single.idFieldName }
    public var modificationDateFieldName: String { single.modificationDateFieldName }
    public var createFieldlist: [String]? { single.createFieldlist }
    public var updateFieldlist: [String]? { single.updateFieldlist }
    public var externalIdFieldName: String? { single.externalIdFieldName }
    public var markerFieldName: String? { single.markerFieldName }
    /// The descriptor's `maxBatchSize` (default 25), at most `SyncUpFields.batchSizeMax`.
    public let maxBatchSize: Int

    private let single: RESTSyncUpTarget
    private let client: SalesforceClient

    /// Creates the target; `maxBatchSize` comes from the descriptor's member of that name.
    public init(_ descriptor: SyncUpTargetDescriptor, client: SalesforceClient) {
        single = RESTSyncUpTarget(descriptor, client: client)
        self.client = client
        maxBatchSize = SyncUpFields.batchSize(descriptor, max: SyncUpFields.batchSizeMax)
    }

    public func createOnServer(objectType: String, fields: [String: JSONValue]) async throws -> String {
        try await single.createOnServer(objectType: objectType, fields: fields)
    }

    public func upsertOnServer(
        objectType: String, externalIdField: String, externalId: String, fields: [String: JSONValue]
    ) async throws -> String {
        try await single.upsertOnServer(
            objectType: objectType, externalIdField: externalIdField, externalId: externalId, fields: fields)
    }

    public func updateOnServer(objectType: String, id: String, fields: [String: JSONValue]) async throws {
        try await single.updateOnServer(objectType: objectType, id: id, fields: fields)
    }

    public func deleteOnServer(objectType: String, id: String) async throws {
        try await single.deleteOnServer(objectType: objectType, id: id)
    }

    public func isNewerThanServer(_ record: JSONValue) async throws -> Bool {
        try await single.isNewerThanServer(record)
    }

    /// Sends the records as one composite request.
    ///
    /// - Throws: ``SyncError/Code/invalidRecords`` for more than ``maxBatchSize`` records;
    ///   `SalesforceError` when the request as a whole fails (the sync ends FAILED).
    public func syncUp(_ records: [JSONValue], fieldlist: [String]?) async throws -> [SyncUpOutcome] {
        try SyncUpFields.checkBatch(records.count, max: maxBatchSize)
        var outcomes = [SyncUpOutcome](repeating: .skipped, count: records.count)
        var subrequests: [CompositeSubrequest] = []
        var positions: [String: (index: Int, action: SyncUpAction)] = [:]
        for (index, record) in records.enumerated() {
            let action = SyncUpAction(record: record)
            guard SyncUpAction.requiresServerCall(record) else {
                outcomes[index] = action == .delete ? .deleted : .skipped
                continue
            }
            guard let objectType = SyncUpFields.objectType(of: record) else {
                outcomes[index] = SyncUpFields.missingObjectType
                continue
            }
            let reference = "record\(index)"
            guard let subrequest = try subrequest(record, action, objectType, reference, fieldlist: fieldlist) else {
                outcomes[index] = SyncUpFields.missingId(idFieldName)
                continue
            }
            subrequests.append(subrequest)
            positions[reference] = (index, action)
        }
        guard !subrequests.isEmpty else { return outcomes }
        for response in try await client.composite(subrequests, allOrNone: false) {
            guard let (index, action) = positions[response.referenceID] else { continue }
            outcomes[index] = try outcome(of: response, action: action)
        }
        return outcomes
    }

    private func subrequest(
        _ record: JSONValue, _ action: SyncUpAction, _ objectType: String, _ reference: String, fieldlist: [String]?
    ) throws -> CompositeSubrequest? {
        let sobjects = "\(client.dataPath)/sobjects/\(SyncUpFields.pathSegment(objectType))"
        switch action {
        case .create:
            let fields = try SyncUpFields.fields(record, for: .create, target: self, fieldlist: fieldlist)
            if let (field, value) = SyncUpFields.externalId(of: record, target: self) {
                let url = "\(sobjects)/\(SyncUpFields.pathSegment(field))/\(SyncUpFields.pathSegment(value))"
                return CompositeSubrequest(method: "PATCH", url: url, body: .object(fields), referenceID: reference)
            }
            return CompositeSubrequest(method: "POST", url: sobjects, body: .object(fields), referenceID: reference)
        case .update:
            guard let id = record[idFieldName]?.string else { return nil }
            let fields = try SyncUpFields.fields(record, for: .update, target: self, fieldlist: fieldlist)
            return CompositeSubrequest(
                method: "PATCH", url: "\(sobjects)/\(SyncUpFields.pathSegment(id))", body: .object(fields),
                referenceID: reference)
        case .delete:
            guard let id = record[idFieldName]?.string else { return nil }
            return CompositeSubrequest(
                method: "DELETE", url: "\(sobjects)/\(SyncUpFields.pathSegment(id))", referenceID: reference)
        case .none:
            return nil
        }
    }

    private func outcome(of response: CompositeSubresponse, action: SyncUpAction) throws -> SyncUpOutcome {
        switch response.httpStatusCode {
        case 200..<300:
            switch action {
            case .create:
                guard let id = response.body["id"]?.string else {
                    throw SalesforceError(code: .invalidResponse, message: "A composite create answered without an id.")
                }
                return .created(serverId: id)
            case .update: return .updated
            case .delete: return .deleted
            case .none: return .skipped
            }
        default:
            return SyncUpFields.outcome(
                ofRefusal: response.body.array?.first ?? response.body, isNotFound: response.httpStatusCode == 404,
                action: action)
        }
    }
}
