import Determinism
import Foundation
import LosslessJSON
import SalesforceAPI

extension SimulatorState {
    /// `GET query?q=`, `queryAll?q=`, and `query/<locator>-<offset>` (next pages).
    mutating func query(_ request: DataRequest, includeDeleted: Bool) throws(APIFailure) -> RouteResult {
        if request.segments.count == 2 { return try queryMore(locator: request.segments[1], version: request.version) }
        guard request.segments.count == 1 else { throw APIFailure.notFound() }
        guard let text = request.query["q"], !text.isEmpty else {
            throw APIFailure.malformedQuery("A query string has to be specified")
        }
        let parsed = try SOQLParser.parse(text, now: now().millisecondsSinceEpoch)
        let evaluator = SOQLEvaluator(store: store, apiVersion: request.version, includeDeleted: includeDeleted)
        let (rows, total) = try evaluator.run(parsed)
        if parsed.isCount { return .json(Self.page(rows: [], totalSize: total, next: nil)) }
        let pageSize = Self.batchSize(request.headers["sforce-query-options"])
        guard rows.count > pageSize else { return .json(Self.page(rows: rows, totalSize: total, next: nil)) }
        let locator = openCursor(rows: rows, pageSize: pageSize)
        let next = "/services/data/\(request.version)/query/\(locator)-\(pageSize)"
        return .json(Self.page(rows: Array(rows.prefix(pageSize)), totalSize: total, next: next))
    }

    /// Serves a page of an open cursor, with the page size of the request that opened it.
    private mutating func queryMore(locator text: String, version: String) throws(APIFailure) -> RouteResult {
        let invalid = APIFailure(errorCode: "INVALID_QUERY_LOCATOR", message: "invalid query locator")
        guard let dash = text.lastIndex(of: "-"), let start = Int(text[text.index(after: dash)...]),
            let cursor = cursors[String(text[..<dash])], start >= 0, start < cursor.rows.count
        else { throw invalid }
        guard cursor.openedAt.advanced(by: Self.cursorLifetime) > now() else {
            cursors[String(text[..<dash])] = nil
            throw invalid
        }
        let end = min(start + cursor.pageSize, cursor.rows.count)
        let next = end < cursor.rows.count ? "/services/data/\(version)/query/\(text[..<dash])-\(end)" : nil
        return .json(Self.page(rows: Array(cursor.rows[start..<end]), totalSize: cursor.rows.count, next: next))
    }

    /// The page size from `Sforce-Query-Options: batchSize=N`, clamped to 200…2000.
    static func batchSize(_ header: String?) -> Int {
        let value = header?.split(separator: ",").lazy.compactMap { option -> Int? in
            let parts = option.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "batchsize" else {
                return nil
            }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first
        guard let value else { return SalesforceLimits.queryBatchSizeMax }
        return min(max(value, SalesforceLimits.queryBatchSizeMin), SalesforceLimits.queryBatchSizeMax)
    }

    static func page(rows: [JSONValue], totalSize: Int, next: String?) -> JSONValue {
        var page: [String: JSONValue] = [
            "totalSize": .number(JSONNumber(Int64(totalSize))), "done": .bool(next == nil), "records": .array(rows),
        ]
        if let next { page["nextRecordsUrl"] = .string(next) }
        return .object(page)
    }

    /// `GET search?q=` (SOSL).
    mutating func search(_ request: DataRequest) throws(APIFailure) -> RouteResult {
        guard let text = request.query["q"] else {
            throw SOSLSearch.malformed("No search term found. The search term must be enclosed in braces.")
        }
        let search = try SOSLSearch.parse(text, now: now().millisecondsSinceEpoch)
        return .json(["searchRecords": .array(try search.run(store: store, apiVersion: request.version))])
    }
}
