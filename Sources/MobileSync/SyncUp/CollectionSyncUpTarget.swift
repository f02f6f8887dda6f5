public import LosslessJSON
public import SalesforceAPI

/// The default sync-up target: sObject Collections, up to 200 records per call (Mobile Sync's
/// `CollectionSyncUpTarget`).
///
/// A batch makes at most four kinds of call, in this order: create (`POST /composite/sobjects`),
/// update (`PATCH /composite/sobjects`), upsert by external id (`PATCH
/// /composite/sobjects/<type>/<field>`, one call per sObject type) and delete (`DELETE
/// /composite/sobjects?ids=…`), all with `allOrNone=false`. LEAVE_IF_CHANGED reads the server's
/// modification dates in bulk (`POST /composite/sobjects/<type>`, up to 2,000 ids per call).
public struct CollectionSyncUpTarget: SyncUpTarget {
    public var idFieldName: String { single.idFieldName }
    public var modificationDateFieldName: String { single.modificationDateFieldName }
    public var createFieldlist: [String]? { single.createFieldlist }
    public var updateFieldlist: [String]? { single.updateFieldlist }
    public var externalIdFieldName: String? { single.externalIdFieldName }
    public var markerFieldName: String? { single.markerFieldName }
    /// The descriptor's `maxBatchSize` (default 200), at most `SyncUpFields.collectionSizeMax`.
    public let maxBatchSize: Int

    private let single: RESTSyncUpTarget
    private let client: SalesforceClient

    /// Creates the target; `maxBatchSize` comes from the descriptor's member of that name.
    public init(_ descriptor: SyncUpTargetDescriptor, client: SalesforceClient) {
        single = RESTSyncUpTarget(descriptor, client: client)
        self.client = client
        maxBatchSize = SyncUpFields.batchSize(descriptor, max: SyncUpFields.collectionSizeMax)
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
        try await areNewerThanServer([record])[0]
    }

    /// Sends the records in at most one call per kind of change (upserts: per sObject type).
    ///
    /// - Throws: ``SyncError/Code/invalidRecords`` for more than ``maxBatchSize`` records;
    ///   `SalesforceError` when a call as a whole fails (the sync ends FAILED).
    public func syncUp(_ records: [JSONValue], fieldlist: [String]?) async throws -> [SyncUpOutcome] {
        try SyncUpFields.checkBatch(records.count, max: maxBatchSize)
        var outcomes = [SyncUpOutcome](repeating: .skipped, count: records.count)
        var creates: [(Int, JSONValue)] = []
        var updates: [(Int, JSONValue)] = []
        var upserts: [String: [(Int, JSONValue)]] = [:]
        var upsertTypes: [String] = []
        var deletes: [(Int, String)] = []
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
            let id = record[idFieldName]?.string
            var body = try SyncUpFields.fields(
                record, for: action == .create ? .create : .update, target: self, fieldlist: fieldlist)
            body["attributes"] = ["type": .string(objectType)]
            switch action {
            case .create:
                if let (field, value) = SyncUpFields.externalId(of: record, target: self) {
                    body[field] = .string(value)
                    if upserts[objectType] == nil { upsertTypes.append(objectType) }
                    upserts[objectType, default: []].append((index, .object(body)))
                } else {
                    creates.append((index, .object(body)))
                }
            case .update:
                guard let id else {
                    outcomes[index] = SyncUpFields.missingId(idFieldName)
                    continue
                }
                body["Id"] = .string(id)
                updates.append((index, .object(body)))
            case .delete:
                guard let id else {
                    outcomes[index] = SyncUpFields.missingId(idFieldName)
                    continue
                }
                deletes.append((index, id))
            case .none:
                continue
            }
        }
        if !creates.isEmpty {
            let results = try await client.collectionCreate(records: creates.map(\.1))
            try record(results, for: creates.map(\.0), action: .create, into: &outcomes)
        }
        if !updates.isEmpty {
            let results = try await client.collectionUpdate(records: updates.map(\.1))
            try record(results, for: updates.map(\.0), action: .update, into: &outcomes)
        }
        for objectType in upsertTypes {
            let batch = upserts[objectType] ?? []
            guard let field = externalIdFieldName else { continue }
            let results = try await client.collectionUpsert(
                type: objectType, externalIDField: field, records: batch.map(\.1))
            try record(results, for: batch.map(\.0), action: .create, into: &outcomes)
        }
        if !deletes.isEmpty {
            let results = try await client.collectionDelete(ids: deletes.map(\.1))
            try record(results, for: deletes.map(\.0), action: .delete, into: &outcomes)
        }
        return outcomes
    }

    private func record(
        _ results: [SaveResult], for indexes: [Int], action: SyncUpAction, into outcomes: inout [SyncUpOutcome]
    ) throws {
        guard results.count == indexes.count else {
            throw SalesforceError(
                code: .invalidResponse,
                message: "An sObject Collections call answered \(results.count) results for \(indexes.count) records.")
        }
        for (index, result) in zip(indexes, results) {
            outcomes[index] = try outcome(of: result, action: action)
        }
    }

    private func outcome(of result: SaveResult, action: SyncUpAction) throws -> SyncUpOutcome {
        if result.success {
            switch action {
            case .create:
                guard let id = result.id else {
                    throw SalesforceError(
                        code: .invalidResponse, message: "A collection create answered without an id.")
                }
                return .created(serverId: id)
            case .update: return .updated
            case .delete, .none: return .deleted
            }
        }
        let error = result.errors.first
        return SyncUpFields.outcome(
            ofRefusal: [
                "statusCode": .string(error?.errorCode ?? ""), "message": .string(error?.message ?? ""),
                "fields": .array((error?.fields ?? []).map(JSONValue.string)),
            ], isNotFound: SyncUpFields.notFoundCodes.contains(error?.errorCode ?? ""), action: action)
    }

    /// Reads the server's modification dates in bulk: locally created and id-less records are
    /// newer without a call; the others must share one sObject type.
    ///
    /// - Throws: ``SyncError/Code/invalidRecords`` "All records should have same sobject type"
    ///   (Mobile Sync's text) when they do not.
    public func areNewerThanServer(_ records: [JSONValue]) async throws -> [Bool] {
        var answers = [Bool](repeating: true, count: records.count)
        var checked: [(index: Int, id: String)] = []
        var objectType: String?
        for (index, record) in records.enumerated() where !SyncUpAction.isLocallyCreated(record) {
            guard let id = record[idFieldName]?.string else { continue }
            let type = SyncUpFields.objectType(of: record)
            if objectType == nil { objectType = type }
            guard let type, type == objectType else {
                throw SyncError(.invalidRecords, "All records should have same sobject type")
            }
            checked.append((index, id))
        }
        guard let objectType else { return answers }
        var start = 0
        while start < checked.count {
            let slice = checked[start..<min(start + SalesforceLimits.collectionRetrieveIDCountMax, checked.count)]
            let copies = try await client.collectionRetrieve(
                type: objectType, ids: slice.map(\.id), fields: [idFieldName, modificationDateFieldName])
            for ((index, _), copy) in zip(slice, copies) {
                let server: SyncUpFields.ServerCopy =
                    if case .null = copy {
                        .deleted
                    } else {
                        copy[modificationDateFieldName]?.string.map(SyncUpFields.ServerCopy.modified) ?? .unknown
                    }
                answers[index] = SyncUpFields.isNewer(
                    local: records[index], dateField: modificationDateFieldName, server: server)
            }
            start += slice.count
        }
        return answers
    }
}
