public import LosslessJSON

/// The answer to a create, an upsert, or one record of an sObject Collections call:
/// `{"id", "success", "errors", "created"}`.
public struct SaveResult: Sendable, Hashable {
    /// The record id, `nil` when a create failed.
    public var id: String?
    /// Whether the write succeeded.
    public var success: Bool
    /// The errors (collections name their code `statusCode`; it lands in
    /// ``SalesforceErrorDetail/errorCode``).
    public var errors: [SalesforceErrorDetail]
    /// For upserts: whether a record was created (`true`) or updated (`false`).
    public var created: Bool?

    /// Creates a result.
    public init(id: String?, success: Bool, errors: [SalesforceErrorDetail] = [], created: Bool? = nil) {
        self.id = id
        self.success = success
        self.errors = errors
        self.created = created
    }

    /// Reads one result object; `nil` when it lacks `success`.
    public init?(json: JSONValue) {
        guard let success = json["success"]?.bool else { return nil }
        self.success = success
        id = json["id"]?.string
        errors = json["errors"]?.array?.compactMap(SalesforceErrorDetail.init(json:)) ?? []
        created = json["created"]?.bool
    }
}
