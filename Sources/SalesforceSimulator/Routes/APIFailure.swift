import LosslessJSON

/// A Salesforce error answer, thrown inside the simulator and turned into a response body at the
/// edge: `[{"message", "errorCode", "fields"?}]` with an HTTP status.
struct APIFailure: Error, Sendable {
    var status: Int
    var errorCode: String
    var message: String
    /// `nil` leaves the `fields` key out, as Salesforce does for query and session errors.
    var fields: [String]?

    init(status: Int = 400, errorCode: String, message: String, fields: [String]? = nil) {
        self.status = status
        self.errorCode = errorCode
        self.message = message
        self.fields = fields
    }

    /// The REST error body: an array with one error object.
    var body: JSONValue {
        .array([detail(codeKey: "errorCode")])
    }

    /// One error object; sObject Collections name the code key `statusCode` and always carry
    /// `fields`.
    func detail(codeKey: String) -> JSONValue {
        var object: [String: JSONValue] = ["message": .string(message), codeKey: .string(errorCode)]
        if let fields { object["fields"] = .array(fields.map { .string($0) }) }
        if codeKey == "statusCode" && fields == nil { object["fields"] = .array([]) }
        return .object(object)
    }

    static let notFoundMessage = "The requested resource does not exist"

    static func notFound(_ message: String = notFoundMessage) -> APIFailure {
        APIFailure(status: 404, errorCode: "NOT_FOUND", message: message)
    }

    static func malformedQuery(_ message: String) -> APIFailure {
        APIFailure(errorCode: "MALFORMED_QUERY", message: message)
    }

    static func unexpectedToken(_ token: String) -> APIFailure {
        malformedQuery("unexpected token: \(token)")
    }

    static func invalidQueryField(_ name: String, entity: String) -> APIFailure {
        APIFailure(
            errorCode: "INVALID_FIELD",
            message:
                "No such column '\(name)' on entity '\(entity)'. If you are attempting to use a custom field, be sure "
                + "to append the '__c' after the custom field name. Please reference your WSDL or the describe call "
                + "for the appropriate names.")
    }

    static func invalidType(_ name: String) -> APIFailure {
        APIFailure(
            errorCode: "INVALID_TYPE",
            message:
                "sObject type '\(name)' is not supported. If you are attempting to use a custom object, be sure to "
                + "append the '__c' after the entity name. Please reference your WSDL or the describe call for the "
                + "appropriate names.")
    }

    static func malformedID(_ id: String, field: String = "Id", label: String = "Record ID") -> APIFailure {
        APIFailure(
            errorCode: "MALFORMED_ID", message: "\(label): id value of incorrect type: \(id)", fields: [field])
    }

    static func entityIsDeleted(status: Int = 404, fields: [String] = []) -> APIFailure {
        APIFailure(status: status, errorCode: "ENTITY_IS_DELETED", message: "entity is deleted", fields: fields)
    }

    static func jsonParser(_ message: String) -> APIFailure {
        APIFailure(errorCode: "JSON_PARSER_ERROR", message: message)
    }

    static func methodNotAllowed(_ method: String, allowed: String) -> APIFailure {
        APIFailure(
            status: 405, errorCode: "METHOD_NOT_ALLOWED",
            message: "HTTP Method '\(method)' not allowed. Allowed are \(allowed)")
    }
}
