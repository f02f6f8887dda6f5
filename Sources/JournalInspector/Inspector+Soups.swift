import EventJournal
import LosslessJSON
import MobileSync
import Soups
import ToolSupport

extension Inspector {
    /// The soups as of `asOf`, as `state --soup` describes them (indexes, records, dirty
    /// entry ids), optionally one `soup`.
    func soups(_ request: InspectorRequest) throws -> JSONValue {
        let state = try StateDescription.json(of: store.journal, asOf: try asOf(request), soup: request["soup"])
        return [
            "asOf": state["asOf"] ?? .null, "lastSequence": number(try store.journal.lastSequence()),
            "soups": state["projections"]?["soups"] ?? .object([:]),
        ]
    }

    /// A query of the current state, as `msync query` and `msync smart-query` run it: `soup`
    /// with one of `exact`, `range`, `like` (each `PATH=VALUE`, a range `PATH=LO..HI`) or
    /// `match`, or `smart` (Smart SQL); `orderBy`, `descending`, `pageSize`, `page`.
    func query(_ request: InspectorRequest) throws -> JSONValue {
        guard request["asOf"] == nil else {
            throw InspectorError(
                .badRequest, "queries run on the current state; the past is on /api/soups?asOf=N")
        }
        let pageSize = try Self.bounded(
            request["pageSize"], name: "pageSize", default: 20, in: 1...QuerySpec.pageSizeMax)
        let page = try Self.bounded(request["page"], name: "page", default: 0, in: 0...Int.max)
        let spec: QuerySpec
        if let sql = request["smart"] {
            spec = QuerySpec.smart(sql: sql, pageSize: pageSize)
        } else {
            let soup = try request.required("soup")
            let text = QueryText(
                exact: request["exact"], range: request["range"], like: request["like"], match: request["match"])
            if let problem = text.problem(prefix: "") { throw InspectorError(.badRequest, problem) }
            spec = QuerySpec(
                soupName: soup, filter: try text.filter(soup: soup, soups: store.soups),
                orderPath: request["orderBy"], order: request["descending"] == "true" ? .descending : .ascending,
                pageSize: pageSize)
        }
        let records = try store.soups.query(spec, pageIndex: page)
        return [
            "count": .number(JSONNumber(Int64(try store.soups.count(spec)))),
            "page": .number(JSONNumber(Int64(page))), "pageSize": .number(JSONNumber(Int64(pageSize))),
            "records": .array(records),
        ]
    }

    static func bounded(_ text: String?, name: String, default value: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw InspectorError(
                .badRequest, "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}
