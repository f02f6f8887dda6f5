import LosslessJSON
import SalesforceAPI

extension SimulatorState {
    static let rolledBack = APIFailure(
        errorCode: "ALL_OR_NONE_OPERATION_ROLLED_BACK",
        message: "Record rolled back because not all records were valid and the request was using AllOrNone header")

    /// `/composite/sobjects[/<Type>[/<Field>]]`.
    mutating func collections(_ request: DataRequest) throws(APIFailure) -> RouteResult {
        let segments = request.segments
        switch (segments.count, request.method) {
        case (2, "POST"):
            return try collectionWrite(request) { state, record throws(APIFailure) in try state.collectionCreate(record)
            }
        case (2, "PATCH"):
            return try collectionWrite(request) { state, record throws(APIFailure) in try state.collectionUpdate(record)
            }
        case (2, "DELETE"): return try collectionDelete(request)
        case (3, "POST"), (3, "GET"): return try collectionRetrieve(request)
        case (4, "PATCH"):
            guard let object = store.schema.object(named: segments[2]) else { throw APIFailure.notFound() }
            guard let field = object.field(named: segments[3]), field.isExternalID || field.name == "Id" else {
                throw APIFailure.notFound(
                    "Provided external ID field does not exist or is not accessible: \(segments[3])")
            }
            return try collectionWrite(request) { state, record throws(APIFailure) in
                try state.collectionUpsert(record, object: object, field: field)
            }
        default:
            throw APIFailure.methodNotAllowed(request.method, allowed: "POST,PATCH,DELETE")
        }
    }

    static func overLimit(_ limit: Int) -> APIFailure {
        APIFailure(
            errorCode: "EXCEEDED_ID_LIMIT",
            message: "record limit reached. cannot submit more than \(limit) records into this call")
    }

    /// Runs one write per record; per-record results in order, with `statusCode` error objects.
    private mutating func collectionWrite(
        _ request: DataRequest, _ write: (inout SimulatorState, JSONValue) throws(APIFailure) -> (String, Bool?)
    ) throws(APIFailure) -> RouteResult {
        guard let records = request.body?["records"]?.array else {
            throw APIFailure.jsonParser("The request body must have a records array.")
        }
        guard records.count <= SalesforceLimits.collectionRecordCountMax else {
            throw Self.overLimit(SalesforceLimits.collectionRecordCountMax)
        }
        let allOrNone = request.body?["allOrNone"]?.bool ?? false
        let saved = store
        var outcomes: [Result<(String, Bool?), APIFailure>] = []
        for record in records {
            do throws(APIFailure) {
                outcomes.append(.success(try write(&self, record)))
            } catch {
                outcomes.append(.failure(error))
            }
        }
        let failed = outcomes.contains { if case .failure = $0 { return true } else { return false } }
        if allOrNone && failed {
            store = saved
            return .json(
                .array(
                    outcomes.map { outcome in
                        if case .failure(let failure) = outcome {
                            return Self.collectionResult(id: nil, failure: failure)
                        }
                        return Self.collectionResult(id: nil, failure: Self.rolledBack)
                    }))
        }
        return .json(
            .array(
                outcomes.map { outcome in
                    switch outcome {
                    case .success(let (id, created)): return Self.collectionResult(id: id, created: created)
                    case .failure(let failure): return Self.collectionResult(id: nil, failure: failure)
                    }
                }))
    }

    static func collectionResult(id: String?, created: Bool? = nil, failure: APIFailure? = nil) -> JSONValue {
        var result: [String: JSONValue] = [
            "id": id.map { .string($0) } ?? .null, "success": .bool(failure == nil),
            "errors": .array(failure.map { [$0.detail(codeKey: "statusCode")] } ?? []),
        ]
        if let created { result["created"] = .bool(created) }
        return .object(result)
    }

    /// The record's type from `attributes.type`; Mobile Sync sends `"null"` when it has none.
    private func collectionType(_ record: JSONValue) throws(APIFailure) -> ObjectSchema {
        let name = record["attributes"]?["type"]?.string ?? "null"
        guard let object = store.schema.object(named: name) else {
            throw APIFailure(errorCode: "INVALID_TYPE", message: "sObject type '\(name)' is not supported.")
        }
        return object
    }

    private mutating func collectionCreate(_ record: JSONValue) throws(APIFailure) -> (String, Bool?) {
        let object = try collectionType(record)
        return (try store.create(object, body: try Self.fields(record), now: writeTime()), nil)
    }

    /// Updates one record; "never existed" is `INVALID_CROSS_REFERENCE_KEY` and "in the recycle
    /// bin" `ENTITY_IS_DELETED`, the two codes Mobile Sync reads as "gone" (decision 0101).
    private mutating func collectionUpdate(_ record: JSONValue) throws(APIFailure) -> (String, Bool?) {
        let object = try collectionType(record)
        guard let text = record["Id"]?.string ?? record["id"]?.string else {
            throw APIFailure(errorCode: "MISSING_ARGUMENT", message: "Id not specified in an update call", fields: [])
        }
        guard let id = SalesforceID(text)?.rawValue else {
            throw APIFailure(errorCode: "MALFORMED_ID", message: "malformed id \(text)", fields: [])
        }
        do throws(APIFailure) {
            try store.update(object, id: id, body: try Self.fields(record), now: writeTime())
        } catch  where error.errorCode == "NOT_FOUND" {
            throw APIFailure(
                errorCode: "INVALID_CROSS_REFERENCE_KEY", message: "invalid cross reference id", fields: [])
        }
        return (id, nil)
    }

    private mutating func collectionUpsert(_ record: JSONValue, object: ObjectSchema, field: FieldSchema)
        throws(APIFailure)
        -> (String, Bool?)
    {
        let given = try collectionType(record)
        guard given.name == object.name else {
            throw APIFailure(errorCode: "INVALID_TYPE", message: "Upsert records must all be of type \(object.name).")
        }
        let body = try Self.fields(record)
        guard let value = body.first(where: { $0.key.lowercased() == field.name.lowercased() })?.value.string else {
            throw APIFailure(
                errorCode: "MISSING_ARGUMENT", message: "\(field.name) not specified", fields: [field.name])
        }
        let outcome = try upsertOne(object, field: field, value: value, body: body)
        if case .several = outcome {
            throw APIFailure(
                errorCode: "DUPLICATE_EXTERNAL_ID",
                message: "\(field.name): more than one record found for external id field",
                fields: [field.name])
        }
        return (outcome.id, outcome.created)
    }

    private mutating func collectionDelete(_ request: DataRequest) throws(APIFailure) -> RouteResult {
        let ids = (request.query["ids"] ?? "").split(separator: ",").map(String.init)
        guard !ids.isEmpty else { throw APIFailure(errorCode: "MISSING_ARGUMENT", message: "ids must be given") }
        guard ids.count <= SalesforceLimits.collectionRecordCountMax else {
            throw Self.overLimit(SalesforceLimits.collectionRecordCountMax)
        }
        var body: [String: JSONValue] = ["allOrNone": .bool(request.query["allOrNone"]?.lowercased() == "true")]
        body["records"] = .array(ids.map { .string($0) })
        return try collectionWrite(
            DataRequest(
                method: "DELETE", segments: request.segments, query: [:], headers: request.headers, body: .object(body),
                version: request.version)
        ) { state, value throws(APIFailure) in
            let text = value.string ?? ""
            guard let id = SalesforceID(text)?.rawValue else {
                throw APIFailure(errorCode: "MALFORMED_ID", message: "malformed id \(text)", fields: [])
            }
            guard let found = state.store.record(id) else {
                throw APIFailure(
                    errorCode: "INVALID_CROSS_REFERENCE_KEY", message: "invalid cross reference id", fields: [])
            }
            try state.store.delete(found.object, id: id, now: state.writeTime())
            return (id, nil)
        }
    }

    /// `POST /composite/sobjects/<Type>` `{"ids", "fields"}`: one element per id, `null` for a
    /// deleted, missing or malformed id.
    private func collectionRetrieve(_ request: DataRequest) throws(APIFailure) -> RouteResult {
        guard let object = store.schema.object(named: request.segments[2]) else { throw APIFailure.notFound() }
        let ids: [String]
        let fieldList: [String]
        if request.method == "GET" {
            ids = (request.query["ids"] ?? "").split(separator: ",").map(String.init)
            fieldList = (request.query["fields"] ?? "").split(separator: ",").map(String.init)
        } else {
            ids = request.body?["ids"]?.array?.compactMap(\.string) ?? []
            fieldList = request.body?["fields"]?.array?.compactMap(\.string) ?? []
        }
        guard ids.count <= SalesforceLimits.collectionRetrieveIDCountMax else {
            throw Self.overLimit(SalesforceLimits.collectionRetrieveIDCountMax)
        }
        let names = try selectedFields(object, fieldList)
        return .json(
            .array(
                ids.map { text in
                    guard let id = SalesforceID(text)?.rawValue, store.typeByID[id] == object.name,
                        let record = store.liveRecord(id)?.fields
                    else { return .null }
                    return render(record, object: object, fields: names, version: request.version)
                }))
    }
}
