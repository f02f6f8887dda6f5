public import LosslessJSON

/// One entry of a Salesforce error array: `{"errorCode": …, "message": …, "fields": […]}`.
///
/// sObject Collections results name the code `statusCode`; ``init(json:)`` accepts both.
public struct SalesforceErrorDetail: Hashable, Sendable {
    /// The Salesforce error code, e.g. `MALFORMED_QUERY`.
    public var errorCode: String
    /// The server's message.
    public var message: String
    /// The fields the error concerns (often empty).
    public var fields: [String]

    /// Creates a detail.
    public init(errorCode: String, message: String, fields: [String] = []) {
        self.errorCode = errorCode
        self.message = message
        self.fields = fields
    }

    /// Reads one error object; `nil` when it is not an object.
    public init?(json: JSONValue) {
        guard case .object = json else { return nil }
        errorCode = json["errorCode"]?.string ?? json["statusCode"]?.string ?? ""
        message = json["message"]?.string ?? ""
        fields = json["fields"]?.array?.compactMap(\.string) ?? []
    }

    /// Reads a whole error body: an array of error objects, an OAuth `{error, error_description}`
    /// object, or anything else (returned as no details).
    public static func parse(body: some Collection<UInt8>) -> [SalesforceErrorDetail] {
        guard let json = try? JSONValue(parsing: body) else { return [] }
        if let array = json.array { return array.compactMap(SalesforceErrorDetail.init(json:)) }
        if let error = json["error"]?.string {
            return [SalesforceErrorDetail(errorCode: error, message: json["error_description"]?.string ?? "")]
        }
        return []
    }
}
