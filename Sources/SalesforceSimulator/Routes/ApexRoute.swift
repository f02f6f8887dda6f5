import LosslessJSON

/// A stand-in for one of an org's Apex REST classes: `GET /services/apexrest/<path>` answers
/// `{"records": [...]}`, the rows of a SOQL query.
///
/// The simulator cannot run Apex; a route lets a custom target that calls an org's own REST
/// endpoint be tested against it, with the same authentication, refresh and faults as the data
/// API. The query may name bind variables `:name`; each is replaced by the request's query
/// parameter of that name, which must be a date-time literal (`2024-05-01T12:30:00.000Z`) or
/// an integer, so a route can serve a reSync (`WHERE LastModifiedDate > :since`). A parameter
/// the query names but the request lacks is a 400 `MISSING_ARGUMENT`.
///
/// In the data file, under `apexRoutes`:
/// `[{"path": "accounts/changed", "soql": "SELECT Id, Name FROM Account WHERE LastModifiedDate > :since"}]`.
public struct ApexRoute: Hashable, Sendable {
    /// The path after `/services/apexrest/`, without a leading `/`.
    public var path: String
    /// The query whose rows the route answers.
    public var soql: String

    /// Creates a route.
    public init(path: String, soql: String) {
        self.path = path
        self.soql = soql
    }

    /// Reads a route from the data file.
    ///
    /// - Throws: ``SimulatorError/Code/invalidData`` without a `path` or a `soql` string.
    init(json: JSONValue) throws {
        guard let path = json["path"]?.string, !path.isEmpty, let soql = json["soql"]?.string else {
            throw SimulatorError(code: .invalidData, message: "Each apexRoutes entry needs a path and a soql string.")
        }
        self.init(path: path.hasPrefix("/") ? String(path.dropFirst()) : path, soql: soql)
    }

    /// The query with each `:name` replaced by the request's `name` parameter.
    ///
    /// - Throws: a 400 `MISSING_ARGUMENT` for a parameter the query names that the request lacks,
    ///   `INVALID_QUERY_FILTER_OPERATOR` for a value that is neither a date-time nor an integer.
    func boundQuery(_ parameters: [String: String]) throws(APIFailure) -> String {
        var text = ""
        var rest = Substring(soql)
        while let colon = rest.firstIndex(of: ":") {
            text += rest[..<colon]
            let nameEnd = rest[rest.index(after: colon)...].firstIndex { !($0.isLetter || $0.isNumber || $0 == "_") }
            let name = String(rest[rest.index(after: colon)..<(nameEnd ?? rest.endIndex)])
            guard !name.isEmpty else {
                text += ":"
                rest = rest[rest.index(after: colon)...]
                continue
            }
            guard let value = parameters[name] else {
                throw APIFailure(errorCode: "MISSING_ARGUMENT", message: "The parameter \(name) is required.")
            }
            guard Self.isLiteral(value) else {
                throw APIFailure(
                    errorCode: "INVALID_QUERY_FILTER_OPERATOR", message: "The parameter \(name) is not a date-time.")
            }
            text += value
            rest = rest[(nameEnd ?? rest.endIndex)...]
        }
        return text + rest
    }

    /// A SOQL date-time literal or an integer: nothing that could change the query's shape.
    private static func isLiteral(_ value: String) -> Bool {
        guard !value.isEmpty, value.utf8.count <= 40 else { return false }
        return value.allSatisfy { $0.isNumber || "-:.TZ+".contains($0) }
    }
}
