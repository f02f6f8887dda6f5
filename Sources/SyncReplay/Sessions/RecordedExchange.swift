import EventJournal
public import Foundation
import LosslessJSON
import SalesforceAPI

/// One request the engine sent and what came back: an answer, or a failure with no answer.
///
/// Exchanges are stored one per line in a case's `exchanges.jsonl`, redacted: the
/// `Authorization` header and the `access_token`/`refresh_token` values of OAuth bodies never
/// reach the file. Bodies are kept as text when they are UTF-8 (Salesforce JSON always is) and
/// as base64 otherwise, so a body comes back byte for byte.
public struct RecordedExchange: Codable, Hashable, Sendable {
    /// The request, as compared during a replay: method, path, query, headers and body.
    public struct Request: Codable, Hashable, Sendable {
        /// The HTTP method.
        public var method: String
        /// The percent-encoded path, without scheme and host (so recordings do not depend on
        /// where the server ran).
        public var path: String
        /// The percent-encoded query, empty when there is none.
        public var query: String
        /// Header fields with lower-cased names, redacted.
        public var headers: [String: String]
        /// The body as UTF-8 text, redacted.
        public var body: String?
        /// The body as base64 when it is not UTF-8.
        public var bodyBase64: String?
    }

    /// The server's answer.
    public struct Response: Codable, Hashable, Sendable {
        /// The HTTP status.
        public var status: Int
        /// Header fields, lower-cased names.
        public var headers: [String: String]
        /// The body as UTF-8 text, redacted.
        public var body: String?
        /// The body as base64 when it is not UTF-8.
        public var bodyBase64: String?
    }

    /// No answer arrived: what the transport threw instead.
    public struct Failure: Codable, Hashable, Sendable {
        /// Whether it was a timeout.
        public var isTimeout: Bool
        /// The transport's message.
        public var message: String
    }

    /// The exchange's position in the session, from 1.
    public var number: Int
    /// What was sent.
    public var request: Request
    /// What came back, unless the request failed.
    public var response: Response?
    /// Why no answer came back, if none did.
    public var failure: Failure?

    /// The value written instead of a token.
    public static let redacted = "REDACTED"
    static let tokenFields: Set<String> = ["access_token", "refresh_token"]

    /// What the transport should give back for this exchange: the response, or the failure thrown.
    func outcome() throws -> TransportResponse {
        if let response {
            return TransportResponse(
                status: response.status, headers: response.headers,
                body: Self.bytes(text: response.body, base64: response.bodyBase64))
        }
        throw TransportFailure(isTimeout: failure?.isTimeout ?? false, message: failure?.message ?? "no answer")
    }
}

// MARK: - Recording

extension RecordedExchange.Request {
    /// Records `request`, redacted.
    init(_ request: TransportRequest) {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        method = request.method
        path = components?.percentEncodedPath ?? request.url.path
        query = components?.percentEncodedQuery ?? ""
        var headers: [String: String] = [:]
        for (name, value) in request.headers {
            headers[name.lowercased()] = name.lowercased() == "authorization" ? RecordedExchange.redacted : value
        }
        self.headers = headers
        let body = request.body.map { RecordedExchange.redactedBody(Array($0), path: path) }
        (self.body, bodyBase64) = RecordedExchange.text(body)
    }

    /// The first field in which `live` differs from this recorded request, or `nil` when none does.
    func firstDifference(from live: RecordedExchange.Request) -> String? {
        if method != live.method { return "method \(live.method) instead of \(method)" }
        if path != live.path { return "path \(live.path) instead of \(path)" }
        if query != live.query { return "query \(live.query) instead of \(query)" }
        for name in Set(headers.keys).union(live.headers.keys).sorted() where headers[name] != live.headers[name] {
            return "header \(name): \(live.headers[name] ?? "absent") instead of \(headers[name] ?? "absent")"
        }
        let recorded = Array((body ?? bodyBase64 ?? "").utf8)
        let sent = Array((live.body ?? live.bodyBase64 ?? "").utf8)
        guard recorded != sent || (body == nil) != (live.body == nil) else { return nil }
        let offset = zip(recorded, sent).prefix { $0 == $1 }.count
        return "body differs at byte \(offset): sent \(Self.excerpt(sent, at: offset)), "
            + "recorded \(Self.excerpt(recorded, at: offset))"
    }

    private static func excerpt(_ bytes: [UInt8], at offset: Int) -> String {
        let start = max(0, offset - 20)
        let slice = bytes[start..<min(bytes.count, offset + 40)]
        return "\"…" + String(decoding: slice, as: UTF8.self) + "…\""
    }
}

extension RecordedExchange.Response {
    /// Records `response`; the bodies of OAuth answers lose their tokens.
    init(_ response: TransportResponse, path: String) {
        status = response.status
        headers = response.headers
        (body, bodyBase64) = RecordedExchange.text(RecordedExchange.redactedBody(Array(response.body), path: path))
    }
}

extension RecordedExchange {
    /// A body with its tokens replaced, when `path` is an OAuth endpoint; otherwise unchanged.
    ///
    /// Token requests are forms (`grant_type=refresh_token&refresh_token=…`) and their answers
    /// JSON objects (`{"access_token": …}`); both shapes are handled.
    public static func redactedBody(_ body: [UInt8], path: String) -> [UInt8] {
        guard path.contains("/oauth2/") else { return body }
        if case .object(var members)? = try? JSONValue(parsing: body) {
            for name in tokenFields where members[name] != nil { members[name] = .string(redacted) }
            return JSONValue.object(members).serialized()
        }
        let text = String(decoding: body, as: UTF8.self)
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            return tokenFields.contains(name) ? "\(name)=\(redacted)" : String(pair)
        }
        return Array(pairs.joined(separator: "&").utf8)
    }

    static func text(_ bytes: [UInt8]?) -> (text: String?, base64: String?) {
        guard let bytes else { return (nil, nil) }
        if let text = String(validating: bytes, as: UTF8.self) { return (text, nil) }
        return (nil, Data(bytes).base64EncodedString())
    }

    static func bytes(text: String?, base64: String?) -> Data {
        if let text { return Data(text.utf8) }
        return base64.flatMap { Data(base64Encoded: $0) } ?? Data()
    }
}

// MARK: - Lines

extension RecordedExchange {
    /// One line of `exchanges.jsonl`: the exchange and the CRC-32C of its compact JSON.
    ///
    /// As in the journal export, the checksum makes a damaged or hand-edited line an error
    /// instead of an answer silently served to the engine.
    private struct Line: Codable {
        var checksum: UInt32
        var exchange: RecordedExchange
    }

    /// The exchange as its `exchanges.jsonl` line, newline included.
    public func line() throws -> Data {
        var data = try SessionFiles.compactEncoder().encode(
            Line(checksum: CRC32C.checksum(Array(try SessionFiles.compactEncoder().encode(self))), exchange: self))
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// Parses `exchanges.jsonl`, checking each line's checksum, canonical form and number.
    ///
    /// - Throws: ``SessionReplayError/Code/malformedFile`` naming the line.
    public static func parseLines(_ data: Data, file: String = SessionFiles.exchanges) throws -> [RecordedExchange] {
        guard data.isEmpty || data.last == UInt8(ascii: "\n") else {
            throw SessionReplayError(.malformedFile, "\(file) does not end with a line break")
        }
        var slices = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        // The empty slice after the final line break.
        slices.removeLast()
        var exchanges: [RecordedExchange] = []
        for (index, slice) in slices.enumerated() {
            let lineNumber = index + 1
            func malformed(_ reason: String) -> SessionReplayError {
                SessionReplayError(.malformedFile, "\(file) line \(lineNumber): \(reason)")
            }
            let line: Line
            do {
                line = try JSONDecoder().decode(Line.self, from: Data(slice))
            } catch {
                throw malformed("not a recorded exchange: \(error)")
            }
            guard CRC32C.checksum(Array(try SessionFiles.compactEncoder().encode(line.exchange))) == line.checksum
            else {
                throw malformed("checksum \(line.checksum) does not match the exchange")
            }
            guard try line.exchange.line() == Data(slice) + [UInt8(ascii: "\n")] else {
                throw malformed("not in canonical form (sorted keys, no spaces)")
            }
            guard line.exchange.number == exchanges.count + 1 else {
                throw malformed("exchange \(line.exchange.number) where \(exchanges.count + 1) was expected")
            }
            guard (line.exchange.response == nil) != (line.exchange.failure == nil) else {
                throw malformed("an exchange has either a response or a failure")
            }
            exchanges.append(line.exchange)
        }
        return exchanges
    }
}
