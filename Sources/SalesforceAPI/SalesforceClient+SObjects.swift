public import LosslessJSON

extension SalesforceClient {
    /// Reads an object's basic information and its recently used records
    /// (`GET /sobjects/<Type>`), as the MRU sync target does.
    ///
    /// - Parameter type: The sObject type, e.g. `Account`.
    /// - Returns: The `objectDescribe` object and the `recentItems` records.
    public func recentItems(type: String) async throws -> (objectDescribe: JSONValue, recentItems: [JSONValue]) {
        let json = try await performJSON(
            APIRequest(method: "GET", path: "\(dataPath)/sobjects/\(Self.pathSegment(type))", isIdempotent: true))
        return (json["objectDescribe"] ?? .null, json["recentItems"]?.array ?? [])
    }

    /// Reads an object's full describe (`GET /sobjects/<Type>/describe`).
    public func describe(type: String) async throws -> JSONValue {
        try await performJSON(
            APIRequest(
                method: "GET", path: "\(dataPath)/sobjects/\(Self.pathSegment(type))/describe", isIdempotent: true))
    }

    /// Reads one record (`GET /sobjects/<Type>/<id>?fields=`).
    ///
    /// - Parameters:
    ///   - type: The sObject type.
    ///   - id: The record id.
    ///   - fields: The fields to return; all fields when empty. `Id` is always included.
    /// - Returns: The record as sent.
    /// - Throws: ``SalesforceError`` with HTTP 404 when the record is deleted or never existed.
    public func retrieve(type: String, id: String, fields: [String] = []) async throws -> JSONValue {
        let query = fields.isEmpty ? [] : [("fields", fields.joined(separator: ","))]
        return try await performJSON(
            APIRequest(
                method: "GET", path: "\(dataPath)/sobjects/\(Self.pathSegment(type))/\(Self.pathSegment(id))",
                query: query, isIdempotent: true))
    }

    /// Creates a record (`POST /sobjects/<Type>`). Never retried: a lost answer may hide a
    /// committed create, and a retry would duplicate it.
    ///
    /// - Returns: The result with the new `id`.
    public func create(type: String, fields: [String: JSONValue]) async throws -> SaveResult {
        let json = try await performJSON(
            APIRequest(
                method: "POST", path: "\(dataPath)/sobjects/\(Self.pathSegment(type))", body: .object(fields),
                isIdempotent: false))
        return try Self.decodeSaveResult(json)
    }

    /// Updates fields of a record (`PATCH /sobjects/<Type>/<id>`); success is HTTP 204.
    public func update(type: String, id: String, fields: [String: JSONValue]) async throws {
        _ = try await perform(
            APIRequest(
                method: "PATCH", path: "\(dataPath)/sobjects/\(Self.pathSegment(type))/\(Self.pathSegment(id))",
                body: .object(fields), isIdempotent: true))
    }

    /// Deletes a record (`DELETE /sobjects/<Type>/<id>`); success is HTTP 204.
    public func delete(type: String, id: String) async throws {
        _ = try await perform(
            APIRequest(
                method: "DELETE", path: "\(dataPath)/sobjects/\(Self.pathSegment(type))/\(Self.pathSegment(id))",
                isIdempotent: true))
    }

    /// Creates or updates the record whose external-id field has a value
    /// (`PATCH /sobjects/<Type>/<Field>/<value>`).
    ///
    /// - Returns: The result; ``SaveResult/created`` tells which happened.
    /// - Throws: ``SalesforceError`` with HTTP 300 when several records match.
    public func upsert(
        type: String, externalIDField: String, value: String, fields: [String: JSONValue]
    ) async throws -> SaveResult {
        let path =
            "\(dataPath)/sobjects/\(Self.pathSegment(type))/\(Self.pathSegment(externalIDField))/\(Self.pathSegment(value))"
        let response = try await perform(
            APIRequest(method: "PATCH", path: path, body: .object(fields), isIdempotent: true))
        guard !response.body.isEmpty, let json = try? JSONValue(parsing: response.body) else {
            // API versions before 46.0 answer an update with 204 and no body.
            return SaveResult(id: nil, success: true, created: false)
        }
        return try Self.decodeSaveResult(json)
    }

    static func decodeSaveResult(_ json: JSONValue) throws -> SaveResult {
        guard let result = SaveResult(json: json) else {
            throw SalesforceError(code: .invalidResponse, message: "The response is not a save result.")
        }
        return result
    }

    /// Percent-encodes one path segment so ids and external-id values with `/` or spaces stay one
    /// segment.
    static func pathSegment(_ text: String) -> String { percentEncode(text) }
}
