public import Determinism
public import LosslessJSON

extension SalesforceClient {
    /// Reads one page of the ids the user's briefcases prime
    /// (`GET connect/briefcase/priming-records`).
    ///
    /// - Parameters:
    ///   - relayToken: the previous page's token; `nil` for the first page.
    ///   - changedAfter: on the first page, only records whose `systemModstamp` is later; sent
    ///     as UTC `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`. The REST API takes either this or a relay
    ///     token, never both, so a later page sends only its token.
    /// - Returns: The page.
    /// - Throws: ``SalesforceError`` for a refused request or an unreadable answer.
    public func primingRecords(relayToken: String? = nil, changedAfter: WallTime? = nil) async throws
        -> PrimingRecords
    {
        var query: [(String, String)] = []
        if let relayToken {
            query.append(("relayToken", relayToken))
        } else if let changedAfter {
            query.append(("changedAfterTimestamp", changedAfter.primingTimestamp))
        }
        let json = try await performJSON(
            APIRequest(
                method: "GET", path: dataPath + "/connect/briefcase/priming-records", query: query, isIdempotent: true))
        return try PrimingRecords(json: json)
    }

    /// Reads the UI API record layout of a type (`GET ui-api/layout/<Type>`).
    ///
    /// - Parameters: the query parameters, each sent only when given: `formFactor` (`Large`,
    ///   `Medium`, `Small`), `layoutType` (`Full`, `Compact`), `mode` (`Create`, `Edit`,
    ///   `View`) and `recordTypeId`.
    /// - Returns: The layout as sent.
    public func layout(
        type: String, formFactor: String? = nil, layoutType: String? = nil, mode: String? = nil,
        recordTypeId: String? = nil
    ) async throws -> JSONValue {
        let parameters = [
            ("formFactor", formFactor), ("layoutType", layoutType), ("mode", mode), ("recordTypeId", recordTypeId),
        ]
        let query = parameters.compactMap { name, value in value.flatMap { $0.isEmpty ? nil : (name, $0) } }
        return try await performJSON(
            APIRequest(
                method: "GET", path: "\(dataPath)/ui-api/layout/\(Self.pathSegment(type))", query: query,
                isIdempotent: true))
    }
}

extension WallTime {
    /// The time as the priming-records API writes it: UTC `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`.
    public var primingTimestamp: String {
        // `salesforceFormat` is UTC with a `+0000` offset; the API wants `Z` instead.
        String(salesforceFormat.dropLast(5)) + "Z"
    }
}
