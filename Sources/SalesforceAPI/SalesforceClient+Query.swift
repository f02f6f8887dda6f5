import Determinism
import Foundation
public import LosslessJSON

extension SalesforceClient {
    /// Runs a SOQL query and returns its first page.
    ///
    /// - Parameters:
    ///   - soql: The query text.
    ///   - batchSize: The page size to ask for, clamped to 200…2000 as Mobile SDK does; sent as
    ///     `Sforce-Query-Options: batchSize=N` on this first request only (the server remembers it
    ///     for ``queryMore(nextRecordsURL:)``), and not sent at all for the default of 2000.
    /// - Returns: The first page; follow ``QueryResult/nextRecordsURL`` for more.
    /// - Throws: ``SalesforceError``, e.g. `MALFORMED_QUERY` or `INVALID_FIELD` with HTTP 400.
    public func query(_ soql: String, batchSize: Int? = nil) async throws -> QueryResult {
        try await runQuery(resource: "query", soql: soql, batchSize: batchSize)
    }

    /// Runs a SOQL query that also returns deleted records (`queryAll`).
    ///
    /// - Parameters:
    ///   - soql: The query text.
    ///   - batchSize: As for ``query(_:batchSize:)``.
    /// - Returns: The first page.
    public func queryAll(_ soql: String, batchSize: Int? = nil) async throws -> QueryResult {
        try await runQuery(resource: "queryAll", soql: soql, batchSize: batchSize)
    }

    /// Fetches the next page of a query.
    ///
    /// - Parameter nextRecordsURL: The previous page's ``QueryResult/nextRecordsURL``, a path
    ///   starting with `/services/data/`.
    /// - Returns: The next page.
    public func queryMore(nextRecordsURL: String) async throws -> QueryResult {
        let (path, query) = Self.splitPathAndQuery(nextRecordsURL)
        return try await performQuery(APIRequest(method: "GET", path: path, query: query, isIdempotent: true))
    }

    /// Runs a SOSL search.
    ///
    /// - Parameter sosl: The search, e.g. `FIND {Acme} IN NAME FIELDS RETURNING Account(Name)`.
    /// - Returns: The `searchRecords` array, records as sent.
    public func search(_ sosl: String) async throws -> [JSONValue] {
        let json = try await performJSON(
            APIRequest(method: "GET", path: dataPath + "/search", query: [("q", sosl)], isIdempotent: true))
        guard let records = json["searchRecords"]?.array ?? json.array else {
            throw SalesforceError(code: .invalidResponse, message: "The search response has no searchRecords.")
        }
        return records
    }

    /// The page size actually requested for a `batchSize`: `nil` (no header) for the default.
    static func effectiveBatchSize(_ batchSize: Int?) -> Int? {
        guard let batchSize else { return nil }
        let clamped = min(max(batchSize, SalesforceLimits.queryBatchSizeMin), SalesforceLimits.queryBatchSizeMax)
        return clamped == SalesforceLimits.queryBatchSizeMax ? nil : clamped
    }

    private func runQuery(resource: String, soql: String, batchSize: Int?) async throws -> QueryResult {
        var request = APIRequest(
            method: "GET", path: dataPath + "/" + resource, query: [("q", soql)], isIdempotent: true)
        if let size = Self.effectiveBatchSize(batchSize) {
            request.headers["Sforce-Query-Options"] = "batchSize=\(size)"
        }
        return try await performQuery(request)
    }

    /// Sends a query request and reads its page, with the server's clock from `Date`.
    private func performQuery(_ request: APIRequest) async throws -> QueryResult {
        let response = try await perform(request)
        var result = try Self.decodeQueryResult(try Self.json(of: response))
        result.serverTime = response.headers["date"].flatMap(WallTime.init(httpDate:))
        return result
    }

    static func decodeQueryResult(_ json: JSONValue) throws -> QueryResult {
        guard let result = QueryResult(json: json) else {
            throw SalesforceError(code: .invalidResponse, message: "The query response lacks totalSize or records.")
        }
        return result
    }

    /// Splits `/path?a=b&c=d` into the path and decoded query pairs.
    static func splitPathAndQuery(_ url: String) -> (String, [(String, String)]) {
        guard let mark = url.firstIndex(of: "?") else { return (url, []) }
        let pairs = url[url.index(after: mark)...].split(separator: "&").map { pair -> (String, String) in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
            return (name, value)
        }
        return (String(url[..<mark]), pairs)
    }
}
