public import LosslessJSON
public import SalesforceAPI

/// The single-record sync-up target: one REST call per record (Mobile Sync's `SyncUpTarget`).
///
/// Create is `POST /sobjects/<type>`, upsert `PATCH /sobjects/<type>/<field>/<value>`, update
/// `PATCH /sobjects/<type>/<id>`, delete `DELETE /sobjects/<type>/<id>`; LEAVE_IF_CHANGED reads
/// the server's modification date with `GET /sobjects/<type>/<id>?fields=<date field>`.
public struct RESTSyncUpTarget: SyncUpTarget {
    public let idFieldName: String
    public let modificationDateFieldName: String
    public let createFieldlist: [String]?
    public let updateFieldlist: [String]?
    public let externalIdFieldName: String?
    public let markerFieldName: String?
    /// Always 1: each record is its own request.
    public var maxBatchSize: Int { 1 }

    private let client: SalesforceClient

    /// Creates the target from its descriptor's field names and lists.
    public init(_ descriptor: SyncUpTargetDescriptor, client: SalesforceClient) {
        idFieldName = descriptor.idFieldName
        modificationDateFieldName = descriptor.modificationDateFieldName
        createFieldlist = descriptor.createFieldlist
        updateFieldlist = descriptor.updateFieldlist
        externalIdFieldName = descriptor.externalIdFieldName
        markerFieldName = SyncUpFields.markerFieldName(descriptor)
        self.client = client
    }

    public func createOnServer(objectType: String, fields: [String: JSONValue]) async throws -> String {
        try Self.serverId(of: await client.create(type: objectType, fields: fields))
    }

    public func upsertOnServer(
        objectType: String, externalIdField: String, externalId: String, fields: [String: JSONValue]
    ) async throws -> String {
        let result = try await client.upsert(
            type: objectType, externalIDField: externalIdField, value: externalId, fields: fields)
        // An upsert by `Id` that updated answers without an id on old API versions.
        if result.id == nil, externalIdField == idFieldName { return externalId }
        return try Self.serverId(of: result)
    }

    public func updateOnServer(objectType: String, id: String, fields: [String: JSONValue]) async throws {
        try await client.update(type: objectType, id: id, fields: fields)
    }

    public func deleteOnServer(objectType: String, id: String) async throws {
        try await client.delete(type: objectType, id: id)
    }

    public func isNewerThanServer(_ record: JSONValue) async throws -> Bool {
        if SyncUpAction.isLocallyCreated(record) { return true }
        guard let objectType = SyncUpFields.objectType(of: record), let id = record[idFieldName]?.string else {
            return true
        }
        let server: SyncUpFields.ServerCopy
        do {
            let copy = try await client.retrieve(type: objectType, id: id, fields: [modificationDateFieldName])
            server = copy[modificationDateFieldName]?.string.map(SyncUpFields.ServerCopy.modified) ?? .unknown
        } catch let error as SalesforceError {
            guard let refusal = SyncUpFields.refusal(error) else { throw error }
            server = refusal.isNotFound ? .deleted : .unknown
        }
        return SyncUpFields.isNewer(local: record, dateField: modificationDateFieldName, server: server)
    }

    static func serverId(of result: SaveResult) throws -> String {
        guard result.success, let id = result.id else {
            throw SalesforceError(code: .invalidResponse, message: "A successful save answered without an id.")
        }
        return id
    }
}
