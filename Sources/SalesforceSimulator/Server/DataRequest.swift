import Foundation
import LosslessJSON

/// A parsed `/services/data/vNN.N/…` request, as routed to the resource handlers; composite
/// sub-requests are built as these too.
struct DataRequest: Sendable {
    var method: String
    /// Path segments after the version, percent-decoded, without empty segments.
    var segments: [String]
    var query: [String: String]
    var headers: [String: String]
    var body: JSONValue?
    /// The API version as in the path, e.g. `v66.0`.
    var version: String

    /// Decodes a query string with form semantics (`+` is a space) and percent-decoding, so
    /// both Android's and iOS's encodings read the same (wire reference §1.2).
    static func decodeQuery(_ raw: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in raw.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decodeComponent(String(parts[0]))
            result[name] = parts.count > 1 ? decodeComponent(String(parts[1])) : ""
        }
        return result
    }

    static func decodeComponent(_ text: String) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// Path segments, percent-decoded; repeated and trailing slashes are insignificant.
    static func segments(of path: String) -> [String] {
        path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
    }

    /// Whether a path segment is an API version such as `v66.0`.
    static func isVersion(_ segment: String) -> Bool {
        let parts = segment.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
        return segment.first == "v" && parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
            && segment.count <= 8
    }
}
