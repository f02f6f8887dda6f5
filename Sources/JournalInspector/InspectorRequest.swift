import Foundation

/// One request as the inspector reads it: a path, its query parameters and the `Host` header.
struct InspectorRequest: Sendable {
    /// The path, such as `/api/log`.
    var path: String
    /// The query parameters, percent-decoded; the last value wins when a name repeats.
    var parameters: [String: String]
    /// The `Host` header (or HTTP/2 authority), if any.
    var host: String?

    init(path: String, query: String, host: String?) {
        self.path = path
        self.host = host
        var components = URLComponents()
        // Forms and the pages' URLSearchParams send a space as `+` (a `+` itself as `%2B`).
        let query = query.replacingOccurrences(of: "+", with: "%20")
        components.percentEncodedQuery = query.isEmpty ? nil : query
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] {
            // An empty value is no filter: a form's empty field leaves its parameter empty.
            guard let value = item.value, !value.isEmpty else { continue }
            parameters[item.name] = value
        }
        self.parameters = parameters
    }

    /// The parameter `name`, if given.
    subscript(name: String) -> String? { parameters[name] }

    /// The parameter `name` as a sequence number.
    ///
    /// - Throws: ``InspectorError/Code/badRequest`` when it is given but not a number.
    func sequence(_ name: String) throws -> UInt64? {
        guard let text = parameters[name] else { return nil }
        guard let value = UInt64(text) else {
            throw InspectorError(.badRequest, "\(name) must be an entry's sequence number, not '\(text)'")
        }
        return value
    }

    /// The parameter `name`, which must be given.
    ///
    /// - Throws: ``InspectorError/Code/badRequest`` when it is missing.
    func required(_ name: String) throws -> String {
        guard let value = parameters[name] else { throw InspectorError(.badRequest, "\(name) is required") }
        return value
    }
}
