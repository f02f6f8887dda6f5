import SalesforceAPI
import SyncCore

extension SimulatorState {
    /// Creates (no `id`) or updates a record out of band, as another user editing the org would:
    /// mod dates advance, but recent items, the request log and API usage are untouched.
    mutating func adminWrite(type: String, id: String?, fields: OrgStore.Fields) throws(APIFailure) -> String {
        guard let object = store.schema.object(named: type) else { throw APIFailure.notFound() }
        let recent = store.recentItems
        defer { store.recentItems = recent }
        guard let id else { return try store.create(object, body: fields, now: writeTime()) }
        let canonical = try OrgStore.canonicalID(id)
        try store.update(object, id: canonical, body: fields, now: writeTime())
        return canonical
    }

    /// Deletes a record out of band.
    mutating func adminDelete(type: String, id: String) throws(APIFailure) {
        guard let object = store.schema.object(named: type) else { throw APIFailure.notFound() }
        let recent = store.recentItems
        defer { store.recentItems = recent }
        try store.delete(object, id: try OrgStore.canonicalID(id), now: writeTime())
    }

    /// `POST /__simulator/records` `{"type", "id"?, "fields"}` and
    /// `DELETE /__simulator/records/<Type>/<id>`.
    mutating func adminRecords(_ request: SimulatorRequest, segments: [String]) -> SimulatorResponse {
        do throws(APIFailure) {
            if request.method == "DELETE", segments.count == 3 {
                try adminDelete(type: segments[1], id: segments[2])
                return Self.response(.noContent)
            }
            guard request.method == "POST", segments.count == 1, let body = try? JSONValue(parsing: request.body),
                let type = body["type"]?.string
            else { return Self.controlError("POST a {\"type\", \"id\", \"fields\"} object") }
            let id = try adminWrite(type: type, id: body["id"]?.string, fields: body["fields"]?.object ?? [:])
            return Self.response(.json(["id": .string(id)]))
        } catch {
            return Self.response(RouteResult(error))
        }
    }
}
