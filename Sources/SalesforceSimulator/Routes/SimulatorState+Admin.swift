import Determinism
import LosslessJSON
import SalesforceAPI

extension SimulatorState {
    /// Creates (no `id`) or updates a record out of band, as another user editing the org would:
    /// mod dates advance, but recent items, the request log and API usage are untouched.
    ///
    /// With `modifiedAt` the write is a transaction that started then and commits now, as a long
    /// Salesforce transaction does: the record is stamped with that time (to the second) and the
    /// logical clock does not advance. A time after the clock is refused.
    mutating func adminWrite(
        type: String, id: String?, fields: OrgStore.Fields, modifiedAt: WallTime? = nil
    ) throws(APIFailure) -> String {
        guard let object = store.schema.object(named: type) else { throw APIFailure.notFound() }
        let stamp = try transactionStart(modifiedAt)
        let recent = store.recentItems
        defer { store.recentItems = recent }
        guard let id else { return try store.create(object, body: fields, now: stamp) }
        let canonical = try OrgStore.canonicalID(id)
        try store.update(object, id: canonical, body: fields, now: stamp)
        return canonical
    }

    /// The time a write is stamped with: `modifiedAt` to the second, or the clock's write time.
    private mutating func transactionStart(_ modifiedAt: WallTime?) throws(APIFailure) -> WallTime {
        guard let modifiedAt else { return writeTime() }
        let stamp = WallTime(millisecondsSinceEpoch: SOQLParser.floorToSecond(modifiedAt.millisecondsSinceEpoch))
        guard stamp <= now() else {
            throw APIFailure(
                errorCode: "INVALID_SIMULATOR_REQUEST",
                message: "modifiedAt \(stamp.salesforceFormat) is after the simulator's clock "
                    + "(\(now().salesforceFormat)): a transaction cannot start in the future")
        }
        return stamp
    }

    /// Deletes a record out of band.
    mutating func adminDelete(type: String, id: String) throws(APIFailure) {
        guard let object = store.schema.object(named: type) else { throw APIFailure.notFound() }
        let recent = store.recentItems
        defer { store.recentItems = recent }
        try store.delete(object, id: try OrgStore.canonicalID(id), now: writeTime())
    }

    /// `POST /__simulator/records` `{"type", "id"?, "fields", "modifiedAt"?}` and
    /// `DELETE /__simulator/records/<Type>/<id>`.
    mutating func adminRecords(_ request: SimulatorRequest, segments: [String]) -> SimulatorResponse {
        do throws(APIFailure) {
            if request.method == "DELETE", segments.count == 3 {
                try adminDelete(type: segments[1], id: segments[2])
                return Self.response(.noContent)
            }
            guard request.method == "POST", segments.count == 1, let body = try? JSONValue(parsing: request.body),
                let type = body["type"]?.string
            else { return Self.controlError("POST a {\"type\", \"id\", \"fields\", \"modifiedAt\"} object") }
            var modifiedAt: WallTime?
            if let text = body["modifiedAt"] {
                guard let time = text.string.flatMap(WallTime.init(iso8601:)) else {
                    return Self.controlError("modifiedAt must be a date-time such as 2024-05-01T12:30:00.000+0000")
                }
                modifiedAt = time
            }
            let id = try adminWrite(
                type: type, id: body["id"]?.string, fields: body["fields"]?.object ?? [:], modifiedAt: modifiedAt)
            return Self.response(.json(["id": .string(id)]))
        } catch {
            return Self.response(RouteResult(error))
        }
    }
}
