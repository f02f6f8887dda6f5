public import LosslessJSON

extension SalesforceClient {
    /// Sends up to 25 sub-requests in one `POST /composite` call.
    ///
    /// Not retried, because sub-requests may create records.
    ///
    /// - Parameters:
    ///   - subrequests: At most ``SalesforceLimits/compositeSubrequestCountMax``.
    ///   - allOrNone: Whether one failure rolls back every sub-request.
    /// - Returns: One sub-response per sub-request, in order.
    /// - Throws: ``SalesforceError/Code/invalidRequest`` over the limit, before sending.
    public func composite(_ subrequests: [CompositeSubrequest], allOrNone: Bool = false) async throws
        -> [CompositeSubresponse]
    {
        try Self.checkCount(subrequests.count, max: SalesforceLimits.compositeSubrequestCountMax, what: "sub-requests")
        let body: JSONValue = [
            "allOrNone": .bool(allOrNone), "compositeRequest": .array(subrequests.map(\.json)),
        ]
        let json = try await performJSON(
            APIRequest(method: "POST", path: dataPath + "/composite", body: body, isIdempotent: false))
        guard let responses = json["compositeResponse"]?.array else {
            throw SalesforceError(code: .invalidResponse, message: "The composite response has no compositeResponse.")
        }
        return try responses.map { element in
            guard let response = CompositeSubresponse(json: element) else {
                throw SalesforceError(code: .invalidResponse, message: "A composite sub-response is malformed.")
            }
            return response
        }
    }

    /// Creates up to 200 records, each carrying `"attributes": {"type": …}`
    /// (`POST /composite/sobjects`). Not retried.
    ///
    /// - Returns: One result per record, in order.
    public func collectionCreate(records: [JSONValue], allOrNone: Bool = false) async throws -> [SaveResult] {
        try await collectionWrite(
            method: "POST", path: dataPath + "/composite/sobjects", records: records, allOrNone: allOrNone)
    }

    /// Updates up to 200 records, each carrying `attributes.type` and `Id`
    /// (`PATCH /composite/sobjects`).
    public func collectionUpdate(records: [JSONValue], allOrNone: Bool = false) async throws -> [SaveResult] {
        try await collectionWrite(
            method: "PATCH", path: dataPath + "/composite/sobjects", records: records, allOrNone: allOrNone)
    }

    /// Upserts up to 200 records of one type by an external-id field
    /// (`PATCH /composite/sobjects/<Type>/<Field>`).
    public func collectionUpsert(
        type: String, externalIDField: String, records: [JSONValue], allOrNone: Bool = false
    ) async throws -> [SaveResult] {
        let path = "\(dataPath)/composite/sobjects/\(Self.pathSegment(type))/\(Self.pathSegment(externalIDField))"
        return try await collectionWrite(method: "PATCH", path: path, records: records, allOrNone: allOrNone)
    }

    /// Deletes up to 200 records by id (`DELETE /composite/sobjects?allOrNone=…&ids=…`).
    public func collectionDelete(ids: [String], allOrNone: Bool = false) async throws -> [SaveResult] {
        try Self.checkCount(ids.count, max: SalesforceLimits.collectionRecordCountMax, what: "ids")
        return try await collectionWrite(
            APIRequest(
                method: "DELETE", path: dataPath + "/composite/sobjects",
                query: [("allOrNone", allOrNone ? "true" : "false"), ("ids", ids.joined(separator: ","))],
                isIdempotent: true))
    }

    /// Reads up to 2,000 records of one type by id (`POST /composite/sobjects/<Type>`).
    ///
    /// - Returns: One element per id, in order: the record, or `.null` when it is deleted or
    ///   does not exist.
    public func collectionRetrieve(type: String, ids: [String], fields: [String]) async throws -> [JSONValue] {
        try Self.checkCount(ids.count, max: SalesforceLimits.collectionRetrieveIDCountMax, what: "ids")
        let body: JSONValue = ["ids": .array(ids.map { .string($0) }), "fields": .array(fields.map { .string($0) })]
        // A retrieve only reads, so it is safe to retry although it is a POST.
        let json = try await performJSON(
            APIRequest(
                method: "POST", path: "\(dataPath)/composite/sobjects/\(Self.pathSegment(type))", body: body,
                isIdempotent: true))
        guard let records = json.array else {
            throw SalesforceError(code: .invalidResponse, message: "The retrieve response is not an array.")
        }
        return records
    }

    /// Sends a `{"allOrNone", "records"}` body; only a `POST` (a create) is treated as not idempotent.
    private func collectionWrite(method: String, path: String, records: [JSONValue], allOrNone: Bool) async throws
        -> [SaveResult]
    {
        try Self.checkCount(records.count, max: SalesforceLimits.collectionRecordCountMax, what: "records")
        return try await collectionWrite(
            APIRequest(
                method: method, path: path, body: ["allOrNone": .bool(allOrNone), "records": .array(records)],
                isIdempotent: method != "POST"))
    }

    private func collectionWrite(_ request: APIRequest) async throws -> [SaveResult] {
        let json = try await performJSON(request)
        guard let results = json.array else {
            throw SalesforceError(code: .invalidResponse, message: "The collection response is not an array.")
        }
        return try results.map(Self.decodeSaveResult)
    }

    static func checkCount(_ count: Int, max: Int, what: String) throws {
        guard count <= max else {
            throw SalesforceError(
                code: .invalidRequest, message: "\(count) \(what) exceed the limit of \(max) per request.")
        }
    }
}
