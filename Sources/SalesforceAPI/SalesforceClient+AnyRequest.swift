public import LosslessJSON

extension SalesforceClient {
    /// Sends any REST request — an Apex REST endpoint (`/services/apexrest/…`), or a data API
    /// call this client has no typed method for — with the client's authentication, its shared
    /// token refresh and its retry policy, and returns the answer's JSON (`null` for an empty
    /// body, as a 204 has).
    ///
    /// ```swift
    /// let totals = try await client.send("GET", path: "/services/apexrest/orders/totals",
    ///                                    query: [("region", "EMEA")])
    /// ```
    ///
    /// - Parameters:
    ///   - method: The HTTP method, upper case (`GET`, `POST`, `PATCH`, `PUT`, `DELETE`, `HEAD`).
    ///   - path: An absolute path on the instance, starting with `/`; ``dataPath`` is the data
    ///     API's root.
    ///   - query: Query parameters, percent-encoded by the client.
    ///   - body: A JSON body, sent as `application/json`.
    ///   - isIdempotent: Whether sending the request twice has the effect of sending it once, so
    ///     a network failure or a 5xx answer may be retried; by default true for `GET`, `HEAD`,
    ///     `PUT` and `DELETE`, false for `POST` and `PATCH` (an Apex `POST` may create twice).
    /// - Throws: ``SalesforceError`` with ``SalesforceError/Code/invalidRequest`` for a method or
    ///   path that cannot be sent; the server's error for a refusal; ``SalesforceError/Code/invalidResponse``
    ///   for a body that is not JSON.
    public func send(
        _ method: String, path: String, query: [(String, String)] = [], body: JSONValue? = nil,
        isIdempotent: Bool? = nil
    ) async throws -> JSONValue {
        let known = ["GET", "HEAD", "PUT", "DELETE", "POST", "PATCH"]
        guard known.contains(method) else {
            throw SalesforceError(
                code: .invalidRequest, message: "Unsupported HTTP method \"\(method)\": use one of \(known)")
        }
        guard path.hasPrefix("/"), !path.contains("://") else {
            throw SalesforceError(
                code: .invalidRequest, message: "The path \"\(path)\" must be absolute on the instance, starting with /"
            )
        }
        let request = APIRequest(
            method: method, path: path, query: query, body: body,
            isIdempotent: isIdempotent ?? ["GET", "HEAD", "PUT", "DELETE"].contains(method))
        let response = try await perform(request)
        return response.body.isEmpty ? .null : try Self.json(of: response)
    }
}
