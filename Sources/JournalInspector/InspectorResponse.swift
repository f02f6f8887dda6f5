import LosslessJSON

/// One answer of the inspector: a status, a content type and the body's bytes.
struct InspectorResponse: Sendable {
    var status: Int
    var contentType: String
    var body: [UInt8]

    /// A JSON document.
    static func json(_ value: JSONValue) -> InspectorResponse {
        json(bytes: value.serialized())
    }

    /// JSON already serialized (such as `log --json`'s array), sent as it is.
    static func json(bytes: [UInt8]) -> InspectorResponse {
        InspectorResponse(status: 200, contentType: "application/json; charset=utf-8", body: bytes + [0x0A])
    }

    /// An error as JSON, `{"error": message, "code": code}`, with the status its code maps to.
    static func failure(_ error: InspectorError) -> InspectorResponse {
        let status: Int
        switch error.code {
        case .forbidden: status = 403
        case .notFound: status = 404
        case .badRequest: status = 400
        default: status = 500
        }
        let body: JSONValue = ["error": .string(error.message), "code": .string(error.code.description)]
        return InspectorResponse(
            status: status, contentType: "application/json; charset=utf-8", body: body.serialized() + [0x0A])
    }
}
