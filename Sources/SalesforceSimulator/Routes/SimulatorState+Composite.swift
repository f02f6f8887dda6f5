import Foundation
import LosslessJSON
import SalesforceAPI

extension SimulatorState {
    static let processingHalted = APIFailure(
        errorCode: "PROCESSING_HALTED",
        message: "The transaction was rolled back since another operation in the same transaction failed.")

    /// `/composite` and `/composite/sobjects…`.
    mutating func composite(_ request: DataRequest) throws(APIFailure) -> RouteResult {
        let segments = request.segments
        if segments.count == 1 {
            try Self.require(request, "POST", allowed: "POST")
            return try compositeRequest(request)
        }
        if segments.count == 2, segments[1].lowercased() == "batch" {
            try Self.require(request, "POST", allowed: "POST")
            return try compositeBatch(request)
        }
        if segments.count == 3, segments[1].lowercased() == "tree" {
            try Self.require(request, "POST", allowed: "POST")
            return try compositeTree(request, type: segments[2])
        }
        guard segments[1].lowercased() == "sobjects" else { throw APIFailure.notFound() }
        return try collections(request)
    }

    /// `POST /composite/batch`: up to 25 independent sub-requests (URLs relative to
    /// `/services/data/`, bodies under `richInput`), each committed on its own; with
    /// `haltOnError` the ones after a failure answer 412 `BATCH_PROCESSING_HALTED`.
    private mutating func compositeBatch(_ request: DataRequest) throws(APIFailure) -> RouteResult {
        guard let subrequests = request.body?["batchRequests"]?.array else {
            throw APIFailure.jsonParser("The request body must have a batchRequests array.")
        }
        guard subrequests.count <= SalesforceLimits.compositeSubrequestCountMax else {
            throw APIFailure(
                errorCode: "LIMIT_EXCEEDED",
                message: "A batch may have at most \(SalesforceLimits.compositeSubrequestCountMax) subrequests.")
        }
        let haltOnError = request.body?["haltOnError"]?.bool ?? false
        var results: [JSONValue] = []
        var hasErrors = false
        for subrequest in subrequests {
            guard !(haltOnError && hasErrors) else {
                let halted = APIFailure(
                    status: 412, errorCode: "BATCH_PROCESSING_HALTED", message: "Batch processing halted per request")
                results.append(["statusCode": 412, "result": halted.body])
                continue
            }
            var url = subrequest["url"]?.string ?? ""
            if !url.hasPrefix("/services/data/") { url = "/services/data/" + url.drop { $0 == "/" } }
            var inner: [String: JSONValue] = ["method": subrequest["method"] ?? .null, "url": .string(url)]
            inner["body"] = subrequest["richInput"]
            let result = runSubrequest(.object(inner), answers: [:], request: request)
            hasErrors = hasErrors || result.status >= 400
            results.append(["statusCode": .number(JSONNumber(Int64(result.status))), "result": result.body ?? .null])
        }
        return .json(["hasErrors": .bool(hasErrors), "results": .array(results)])
    }

    /// `POST /composite`: up to 25 sub-requests run in order, `@{ref.path}` references resolved
    /// from earlier answers; `allOrNone` rolls all back on the first failure.
    private mutating func compositeRequest(_ request: DataRequest) throws(APIFailure) -> RouteResult {
        guard let subrequests = request.body?["compositeRequest"]?.array else {
            throw APIFailure.jsonParser("The request body must have a compositeRequest array.")
        }
        guard subrequests.count <= SalesforceLimits.compositeSubrequestCountMax else {
            throw APIFailure(
                errorCode: "LIMIT_EXCEEDED",
                message:
                    "A composite request may have at most \(SalesforceLimits.compositeSubrequestCountMax) subrequests.")
        }
        var referenceIDs: Set<String> = []
        for subrequest in subrequests {
            guard let reference = subrequest["referenceId"]?.string, !reference.isEmpty,
                reference.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }),
                referenceIDs.insert(reference).inserted, subrequest["method"]?.string != nil,
                subrequest["url"]?.string != nil
            else {
                throw APIFailure(
                    errorCode: "INVALID_INPUT",
                    message: "Each subrequest needs a method, a url and a unique referenceId of letters, digits and _.")
            }
        }
        let allOrNone = request.body?["allOrNone"]?.bool ?? false
        let saved = store
        var answers: [String: (status: Int, body: JSONValue)] = [:]
        var responses: [JSONValue] = []
        var failedAt: Int?
        for (index, subrequest) in subrequests.enumerated() {
            let reference = subrequest["referenceId"]?.string ?? ""
            let result = runSubrequest(subrequest, answers: answers, request: request)
            answers[reference] = (result.status, result.body ?? .null)
            responses.append(Self.subresponse(result, reference: reference))
            if allOrNone && result.status >= 400 {
                failedAt = index
                break
            }
        }
        if let failedAt {
            store = saved
            responses = subrequests.enumerated().map { index, subrequest in
                let reference = subrequest["referenceId"]?.string ?? ""
                return index == failedAt
                    ? responses[index] : Self.subresponse(RouteResult(Self.processingHalted), reference: reference)
            }
        }
        return .json(["compositeResponse": .array(responses)])
    }

    static func subresponse(_ result: RouteResult, reference: String) -> JSONValue {
        var headers: [String: JSONValue] = [:]
        for (name, value) in result.headers where name == "Location" { headers[name] = .string(value) }
        return [
            "body": result.body ?? .null, "httpHeaders": .object(headers),
            "httpStatusCode": .number(JSONNumber(Int64(result.status))), "referenceId": .string(reference),
        ]
    }

    private mutating func runSubrequest(
        _ subrequest: JSONValue, answers: [String: (status: Int, body: JSONValue)], request: DataRequest
    ) -> RouteResult {
        do throws(APIFailure) {
            let url = try Self.substitute(.string(subrequest["url"]?.string ?? ""), answers: answers).string ?? ""
            let body = try subrequest["body"].map { value throws(APIFailure) in
                try Self.substitute(value, answers: answers)
            }
            let target = SimulatorRequest(method: subrequest["method"]?.string ?? "", target: url)
            let segments = DataRequest.segments(of: target.path)
            guard segments.count >= 3, segments[0] == "services", segments[1] == "data",
                DataRequest.isVersion(segments[2])
            else { throw APIFailure.notFound() }
            let inner = Array(segments.dropFirst(3))
            guard let first = inner.first?.lowercased(),
                ["sobjects", "query", "queryall", "composite"].contains(first),
                !(first == "composite" && inner.count == 1)
            else { throw APIFailure.notFound() }
            return try route(
                DataRequest(
                    method: target.method, segments: inner, query: DataRequest.decodeQuery(target.query),
                    headers: request.headers, body: body, version: segments[2]))
        } catch {
            return RouteResult(error)
        }
    }

    /// Replaces `@{reference.path}` in strings with values from earlier sub-responses; a
    /// reference to a failed or unknown sub-request halts this one (decision 0101).
    static func substitute(_ value: JSONValue, answers: [String: (status: Int, body: JSONValue)]) throws(APIFailure)
        -> JSONValue
    {
        switch value {
        case .string(let text):
            guard text.contains("@{") else { return value }
            var output = ""
            var rest = Substring(text)
            while let open = rest.range(of: "@{"), let close = rest[open.upperBound...].firstIndex(of: "}") {
                output += rest[..<open.lowerBound]
                let expression = rest[open.upperBound..<close]
                let resolved = try resolveReference(String(expression), answers: answers)
                if output.isEmpty && rest.index(after: close) == rest.endIndex && resolved.string == nil {
                    return resolved
                }
                output += resolved.string ?? resolved.serializedString
                rest = rest[rest.index(after: close)...]
            }
            return .string(output + rest)
        case .array(let elements):
            var result: [JSONValue] = []
            for element in elements { result.append(try substitute(element, answers: answers)) }
            return .array(result)
        case .object(let members):
            var result: [String: JSONValue] = [:]
            for (key, member) in members { result[key] = try substitute(member, answers: answers) }
            return .object(result)
        default:
            return value
        }
    }

    private static func resolveReference(_ expression: String, answers: [String: (status: Int, body: JSONValue)])
        throws(APIFailure) -> JSONValue
    {
        let parts = expression.split(separator: ".").map(String.init)
        guard let name = parts.first, let answer = answers[name], answer.status < 400 else {
            throw APIFailure(
                errorCode: "PROCESSING_HALTED",
                message:
                    "Invalid reference specified. No value for \(expression) found in a successful earlier subrequest.")
        }
        var current = answer.body
        for part in parts.dropFirst() {
            var key = Substring(part)
            var indexes: [Int] = []
            while let open = key.lastIndex(of: "["), key.last == "]",
                let index = Int(key[key.index(after: open)..<key.index(before: key.endIndex)])
            {
                indexes.insert(index, at: 0)
                key = key[..<open]
            }
            current = current[String(key)] ?? .null
            for index in indexes { current = (current.array.flatMap { index < $0.count ? $0[index] : nil }) ?? .null }
        }
        guard current != .null else {
            throw APIFailure(errorCode: "PROCESSING_HALTED", message: "No value for \(expression).")
        }
        return current
    }
}
