import EventJournal
import LosslessJSON
import MobileSync
import Soups
import ToolSupport

extension Inspector {
    /// The soups as of `asOf`, optionally one `soup`: per soup its indexes, its record count,
    /// its dirty count and the first ``dirtyIdsShownMax`` dirty `_soupEntryId`s. The records
    /// themselves are paged by ``soupRecords(_:soup:)``: a soup of any size answers in a few
    /// hundred bytes.
    func soups(_ request: InspectorRequest) throws -> JSONValue {
        let (summaries, sequence) = try store.journal.withState(asOf: try asOf(request) ?? UInt64.max) {
            context, sequence in
            (
                try SoupProjection.summaries(in: context, soup: request["soup"], dirtyIdsMax: Self.dirtyIdsShownMax),
                sequence
            )
        }
        var soups: [String: JSONValue] = [:]
        for summary in summaries {
            soups[summary.name] = [
                "indexes": .array(
                    summary.indexes.map { ["path": .string($0.path), "type": .string($0.type.rawValue)] }),
                "recordCount": .number(JSONNumber(Int64(summary.recordCount))),
                "dirtyCount": .number(JSONNumber(Int64(summary.dirtyCount))),
                "dirty": .array(summary.dirtyIds.map { .number(JSONNumber($0)) }),
            ]
        }
        return [
            "asOf": number(sequence), "lastSequence": number(try store.journal.lastSequence()), "soups": .object(soups),
        ]
    }

    /// The most dirty `_soupEntryId`s a soup's summary lists; the count says how many there are.
    static let dirtyIdsShownMax = 20

    /// One page of `soup`'s records as of `asOf`, in `_soupEntryId` order: at most `limit`
    /// (``recordsPageSizeDefault``, at most ``recordsPageSizeMax``) after the `_soupEntryId`
    /// `after`, as a ``RecordTable``, with `next` (the `after` of the next page) when more follow.
    func soupRecords(_ request: InspectorRequest, soup: String) throws -> JSONValue {
        let limit = try Self.bounded(
            request["limit"], name: "limit", default: Self.recordsPageSizeDefault, in: 1...Self.recordsPageSizeMax)
        var after: Int64?
        if let text = request["after"] {
            guard let value = Int64(text), value >= 0 else {
                throw InspectorError(.badRequest, "after must be a record's _soupEntryId, not '\(text)'")
            }
            after = value
        }
        let (page, sequence) = try store.journal.withState(asOf: try asOf(request) ?? UInt64.max) { context, sequence in
            (try SoupProjection.recordsPage(in: context, soup: soup, after: after, limit: limit), sequence)
        }
        var object = RecordTable(records: page.records.map(\.record), indexPaths: page.indexes.map(\.path)).json
        object["soup"] = .string(soup)
        object["asOf"] = number(sequence)
        object["lastSequence"] = number(try store.journal.lastSequence())
        object["limit"] = .number(JSONNumber(Int64(limit)))
        object["next"] = .null
        if page.hasMore, let last = page.records.last { object["next"] = .number(JSONNumber(last.entryId)) }
        return .object(object)
    }

    /// The records one page of a soup lists unless asked for fewer: a first screen.
    static let recordsPageSizeDefault = 100
    /// The most records one page of a soup lists.
    static let recordsPageSizeMax = 500

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
        var object: [String: JSONValue] = [
            "count": .number(JSONNumber(Int64(try store.soups.count(spec)))),
            "page": .number(JSONNumber(Int64(page))), "pageSize": .number(JSONNumber(Int64(pageSize))),
            "records": .array(records),
        ]
        // A soup query's records also come as the table the page draws (ids and indexed paths
        // first, long values cut); a Smart SQL query's rows are not records.
        if request["smart"] == nil {
            let paths = try store.soups.indexSpecs(of: spec.soupName).map(\.path)
            object.merge(RecordTable(records: records, indexPaths: paths).json) { _, table in table }
        }
        return .object(object)
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
