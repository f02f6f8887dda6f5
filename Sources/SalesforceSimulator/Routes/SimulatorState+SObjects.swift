import LosslessJSON
import SalesforceAPI

extension SimulatorState {
    /// `/sobjects`, `/sobjects/<Type>`, `/sobjects/<Type>/describe`, `/sobjects/<Type>/<id>` and
    /// `/sobjects/<Type>/<ExternalField>/<value>`.
    mutating func sObjects(_ request: DataRequest) throws(APIFailure) -> RouteResult {
        let segments = request.segments
        if segments.count == 1 {
            try Self.require(request, "GET", allowed: "GET,HEAD")
            return .json([
                "encoding": "UTF-8", "maxBatchSize": 200,
                "sobjects": .array(store.schema.objects.map { objectDescribe($0, version: request.version) }),
            ])
        }
        guard let object = store.schema.object(named: segments[1]) else { throw APIFailure.notFound() }
        switch segments.count {
        case 2:
            switch request.method {
            case "GET": return .json(basicInfo(object, version: request.version))
            case "POST": return try create(object, body: request.body, version: request.version)
            default: throw APIFailure.methodNotAllowed(request.method, allowed: "HEAD,GET,POST")
            }
        case 3 where segments[2].lowercased() == "describe":
            try Self.require(request, "GET", allowed: "GET,HEAD")
            return .json(describe(object, version: request.version))
        case 3:
            return try record(object, segment: segments[2], request: request)
        case 4:
            return try upsert(object, fieldName: segments[2], value: segments[3], request: request)
        default:
            throw APIFailure.notFound()
        }
    }

    /// `/sobjects/<Type>/<id>`: retrieve, update or delete; a segment that is not id-shaped is
    /// read as an external-id field name, as Salesforce does.
    private mutating func record(_ object: ObjectSchema, segment: String, request: DataRequest) throws(APIFailure)
        -> RouteResult
    {
        let idShaped =
            (segment.count == 15 || segment.count == 18)
            && segment.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        if !idShaped, let field = object.field(named: segment), field.isExternalID || field.name == "Id" {
            // `POST /sobjects/Account/Id` (no value) creates, as upsert without a value does.
            guard request.method == "POST" || request.method == "PATCH" else {
                throw APIFailure.methodNotAllowed(request.method, allowed: "HEAD,POST,PATCH")
            }
            return try create(object, body: request.body, version: request.version)
        }
        if !idShaped && request.method == "GET" {
            throw APIFailure.notFound("Provided external ID field does not exist or is not accessible: \(segment)")
        }
        let id = try OrgStore.canonicalID(segment)
        switch request.method {
        case "GET":
            return .json(try retrieve(object, id: id, fields: request.query["fields"], version: request.version))
        case "PATCH":
            try store.update(object, id: id, body: try Self.fields(request.body), now: writeTime())
            return .noContent
        case "DELETE":
            try store.delete(object, id: id, now: writeTime())
            return .noContent
        default:
            throw APIFailure.methodNotAllowed(request.method, allowed: "HEAD,GET,PATCH,DELETE")
        }
    }

    /// A write body must be a JSON object.
    static func fields(_ body: JSONValue?) throws(APIFailure) -> OrgStore.Fields {
        guard let fields = (body ?? .object([:])).object else {
            throw APIFailure.jsonParser("Cannot deserialize instance of sObject from a non-object value")
        }
        return fields
    }

    mutating func create(_ object: ObjectSchema, body: JSONValue?, version: String) throws(APIFailure) -> RouteResult {
        let id = try store.create(object, body: try Self.fields(body), now: writeTime())
        return Self.created(object, id: id, version: version, created: nil)
    }

    static func created(_ object: ObjectSchema, id: String, version: String, created: Bool?) -> RouteResult {
        var body: [String: JSONValue] = ["id": .string(id), "success": true, "errors": []]
        if let created { body["created"] = .bool(created) }
        return RouteResult(
            status: created == false ? 200 : 201, body: .object(body),
            headers: created == false ? [:] : ["Location": "/services/data/\(version)/sobjects/\(object.name)/\(id)"])
    }

    /// One record with the `fields=` list (all fields when absent); `Id` always included.
    func retrieve(_ object: ObjectSchema, id: String, fields list: String?, version: String) throws(APIFailure)
        -> JSONValue
    {
        guard store.typeByID[id] == object.name, let record = store.liveRecord(id)?.fields else {
            throw APIFailure.notFound()
        }
        let names = try selectedFields(object, list?.split(separator: ",").map(String.init))
        return render(record, object: object, fields: names, version: version)
    }

    /// Canonical field names for a `fields` list plus `Id`; all fields when `nil` or empty.
    func selectedFields(_ object: ObjectSchema, _ list: [String]?) throws(APIFailure) -> [String] {
        let requested = (list ?? []).map { $0.trimmingWhitespace }.filter { !$0.isEmpty }
        guard !requested.isEmpty else { return object.fields.map(\.name) }
        var names: [String] = []
        for name in requested {
            guard let field = object.field(named: name) else {
                throw APIFailure.invalidQueryField(name, entity: object.name)
            }
            if !names.contains(field.name) { names.append(field.name) }
        }
        if !names.contains("Id") { names.append("Id") }
        return names
    }

    func render(_ record: OrgStore.Fields, object: ObjectSchema, fields: [String], version: String) -> JSONValue {
        var output: [String: JSONValue] = [
            "attributes": [
                "type": .string(object.name),
                "url": .string("/services/data/\(version)/sobjects/\(object.name)/\(record["Id"]?.string ?? "")"),
            ]
        ]
        for name in fields { output[name] = record[name] ?? .null }
        return .object(output)
    }

    /// `PATCH /sobjects/<Type>/<Field>/<value>`: 201 created, 200 updated, 300 several matches.
    private mutating func upsert(_ object: ObjectSchema, fieldName: String, value: String, request: DataRequest)
        throws(APIFailure) -> RouteResult
    {
        guard let field = object.field(named: fieldName), field.isExternalID || field.name == "Id" else {
            throw APIFailure.notFound("Provided external ID field does not exist or is not accessible: \(fieldName)")
        }
        if request.method == "GET" {
            return try retrieveByExternalID(object, field: field, value: value, request: request)
        }
        guard request.method == "PATCH" || request.method == "POST" else {
            throw APIFailure.methodNotAllowed(request.method, allowed: "HEAD,GET,PATCH,POST")
        }
        let outcome = try upsertOne(object, field: field, value: value, body: try Self.fields(request.body))
        if case .several(let ids) = outcome {
            return .json(
                .array(ids.map { .string("/services/data/\(request.version)/sobjects/\(object.name)/\($0)") }),
                status: 300)
        }
        return Self.created(object, id: outcome.id, version: request.version, created: outcome.created)
    }

    /// `GET /sobjects/<Type>/<Field>/<value>`: the one live record with that value; 404 when
    /// none, 300 with their URLs when several.
    private func retrieveByExternalID(_ object: ObjectSchema, field: FieldSchema, value: String, request: DataRequest)
        throws(APIFailure) -> RouteResult
    {
        let wanted = field.name == "Id" ? (SalesforceID(value)?.rawValue ?? value) : value
        let matches = store.records(of: object.name, includeDeleted: false).filter {
            $0[field.name]?.string?.lowercased() == wanted.lowercased()
        }
        guard matches.count <= 1 else {
            let urls = matches.map {
                JSONValue.string("/services/data/\(request.version)/sobjects/\(object.name)/\($0["Id"]?.string ?? "")")
            }
            return .json(.array(urls), status: 300)
        }
        guard let record = matches.first else { throw APIFailure.notFound() }
        let names = try selectedFields(object, request.query["fields"]?.split(separator: ",").map(String.init))
        return .json(render(record, object: object, fields: names, version: request.version))
    }

    enum UpsertOutcome {
        case created(String)
        case updated(String)
        case several([String])

        var id: String {
            switch self {
            case .created(let id), .updated(let id): return id
            case .several(let ids): return ids.first ?? ""
            }
        }

        var created: Bool {
            if case .created = self { return true }
            return false
        }
    }

    /// Creates or updates the record whose `field` equals `value`.
    mutating func upsertOne(_ object: ObjectSchema, field: FieldSchema, value: String, body: OrgStore.Fields)
        throws(APIFailure) -> UpsertOutcome
    {
        var body = body
        body = body.filter { $0.key.lowercased() != field.name.lowercased() }
        if field.name == "Id" {
            try store.update(object, id: try OrgStore.canonicalID(value), body: body, now: writeTime())
            return .updated(try OrgStore.canonicalID(value))
        }
        let matches = store.records(of: object.name, includeDeleted: false).filter {
            $0[field.name]?.string?.lowercased() == value.lowercased()
        }.compactMap { $0["Id"]?.string }
        switch matches.count {
        case 0:
            body[field.name] = .string(value)
            return .created(try store.create(object, body: body, now: writeTime()))
        case 1:
            try store.update(object, id: matches[0], body: body, now: writeTime())
            return .updated(matches[0])
        default:
            return .several(matches)
        }
    }
}
