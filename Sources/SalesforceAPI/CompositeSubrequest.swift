public import LosslessJSON

/// One sub-request of `POST /composite`.
///
/// `url` is the full `/services/data/vNN.N/...` path; `body` and `url` may reference an earlier
/// sub-response with `@{referenceId.id}`.
public struct CompositeSubrequest: Sendable, Hashable {
    /// The HTTP method.
    public var method: String
    /// The path, starting with `/services/data/`.
    public var url: String
    /// The body, `nil` for none.
    public var body: JSONValue?
    /// A name for this sub-request (letters, digits and `_`), unique within the call.
    public var referenceID: String

    /// Creates a sub-request.
    public init(method: String, url: String, body: JSONValue? = nil, referenceID: String) {
        self.method = method
        self.url = url
        self.body = body
        self.referenceID = referenceID
    }

    /// The JSON object Salesforce expects.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "method": .string(method), "url": .string(url), "referenceId": .string(referenceID),
        ]
        if let body { object["body"] = body }
        return .object(object)
    }
}
