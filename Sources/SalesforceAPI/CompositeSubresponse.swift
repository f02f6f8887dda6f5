public import LosslessJSON

/// One sub-response of `POST /composite`: `{body, httpHeaders, httpStatusCode, referenceId}`.
public struct CompositeSubresponse: Sendable, Hashable {
    /// The body the standalone call would have returned (`null` for 204).
    public var body: JSONValue
    /// The sub-response's headers (`Location` for a create).
    public var httpHeaders: [String: String]
    /// The sub-response's status.
    public var httpStatusCode: Int
    /// The sub-request's reference id.
    public var referenceID: String

    /// Creates a sub-response.
    public init(body: JSONValue, httpHeaders: [String: String], httpStatusCode: Int, referenceID: String) {
        self.body = body
        self.httpHeaders = httpHeaders
        self.httpStatusCode = httpStatusCode
        self.referenceID = referenceID
    }

    /// Reads one sub-response; `nil` when a required key is missing.
    public init?(json: JSONValue) {
        guard let status = json["httpStatusCode"]?.number?.int64Value, let reference = json["referenceId"]?.string
        else { return nil }
        httpStatusCode = Int(status)
        referenceID = reference
        body = json["body"] ?? .null
        var headers: [String: String] = [:]
        for (name, value) in json["httpHeaders"]?.object ?? [:] { headers[name] = value.string ?? "" }
        httpHeaders = headers
    }
}
