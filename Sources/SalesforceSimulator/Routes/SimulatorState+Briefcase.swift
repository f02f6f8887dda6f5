import Determinism
import LosslessJSON
import SalesforceAPI

/// A record a briefcase primes.
struct PrimedRecord: Sendable, Hashable {
    var type: String
    var id: String
    var systemModstamp: WallTime
}

/// The priming records not served yet, behind a relay token, and the counts of the whole answer.
struct RelayCursor: Sendable {
    var remaining: [PrimedRecord]
    var total: Int
    var ruleErrors: [JSONValue]
    var rulesTotal: Int
}

extension SimulatorState {
    /// The record type id priming answers group records under: the master record type.
    static let masterRecordTypeId = "012000000000000AAA"

    /// `GET connect/briefcase/priming-records`: the ids of the live records the briefcases'
    /// rules select, `primingPageSize` per page, later pages by `relayToken`.
    ///
    /// The first page snapshots every id (like a query cursor, decision 0101);
    /// `changedAfterTimestamp` keeps records whose `SystemModstamp` is later. When both are
    /// given the relay token wins, as the REST API takes one or the other. A rule whose filter
    /// the SOQL interpreter refuses is listed in `ruleErrors` and primes nothing.
    mutating func primingRecords(_ request: DataRequest) throws(APIFailure) -> RouteResult {
        if let token = request.query["relayToken"] {
            guard let cursor = relayCursors[token] else {
                throw APIFailure(
                    errorCode: "INVALID_RELAY_TOKEN", message: "The relay token is unknown or has expired.")
            }
            relayCursors[token] = nil
            relayOrder.removeAll { $0 == token }
            return .json(
                primingPage(
                    cursor.remaining, total: cursor.total, ruleErrors: cursor.ruleErrors, rulesTotal: cursor.rulesTotal)
            )
        }
        var changedAfter: WallTime?
        if let text = request.query["changedAfterTimestamp"] {
            guard let time = WallTime(iso8601: text) else {
                throw APIFailure(
                    errorCode: "INVALID_INPUT", message: "changedAfterTimestamp is not a date-time: \(text)")
            }
            changedAfter = time
        }
        var records: [PrimedRecord] = []
        var seen = Set<String>()
        var ruleErrors: [JSONValue] = []
        var ruleCount = 0
        for briefcase in store.briefcases {
            for (position, rule) in briefcase.rules.enumerated() {
                ruleCount += 1
                guard let primed = try? primed(rule, version: request.version) else {
                    ruleErrors.append(["ruleId": .string("\(briefcase.name)/\(position)")])
                    continue
                }
                for record in primed where seen.insert(record.id).inserted {
                    if let changedAfter, record.systemModstamp <= changedAfter { continue }
                    records.append(record)
                }
            }
        }
        return .json(primingPage(records, total: records.count, ruleErrors: ruleErrors, rulesTotal: ruleCount))
    }

    /// The live records one rule selects, in creation order.
    private func primed(_ rule: Briefcase.Rule, version: String) throws(APIFailure) -> [PrimedRecord] {
        let condition = rule.filter.map { " WHERE \($0)" } ?? ""
        let query = try SOQLParser.parse(
            "SELECT Id, SystemModstamp FROM \(rule.objectType)\(condition)", now: now().millisecondsSinceEpoch)
        let (rows, _) = try SOQLEvaluator(store: store, apiVersion: version, includeDeleted: false).run(query)
        let type = store.schema.object(named: rule.objectType)?.name ?? rule.objectType
        return rows.compactMap { row in
            guard let id = row["Id"]?.string, let stamp = row["SystemModstamp"]?.string.flatMap(WallTime.init(iso8601:))
            else { return nil }
            return PrimedRecord(type: type, id: id, systemModstamp: stamp)
        }
    }

    /// One page of `records`, opening a relay cursor for the rest.
    private mutating func primingPage(
        _ records: [PrimedRecord], total: Int, ruleErrors: [JSONValue], rulesTotal: Int
    ) -> JSONValue {
        let page = Array(records.prefix(store.primingPageSize))
        var relayToken: JSONValue = .null
        if records.count > page.count {
            cursorCounter += 1
            let token = "relay-\(cursorCounter)"
            relayCursors[token] = RelayCursor(
                remaining: Array(records.dropFirst(page.count)), total: total, ruleErrors: ruleErrors,
                rulesTotal: rulesTotal)
            relayOrder.append(token)
            if relayOrder.count > Self.cursorCountMax { relayCursors[relayOrder.removeFirst()] = nil }
            relayToken = .string(token)
        }
        var byType: [String: [JSONValue]] = [:]
        for record in page {
            byType[record.type, default: []].append([
                "id": .string(record.id), "systemModstamp": .string(record.systemModstamp.primingTimestamp),
            ])
        }
        return [
            "primingRecords": .object(byType.mapValues { [Self.masterRecordTypeId: .array($0)] }),
            "relayToken": relayToken, "ruleErrors": .array(ruleErrors),
            "stats": [
                "recordCountServed": .number(JSONNumber(Int64(page.count))),
                "recordCountTotal": .number(JSONNumber(Int64(total))),
                "ruleCountServed": .number(JSONNumber(Int64(rulesTotal - ruleErrors.count))),
                "ruleCountTotal": .number(JSONNumber(Int64(rulesTotal))),
            ],
        ]
    }
}
