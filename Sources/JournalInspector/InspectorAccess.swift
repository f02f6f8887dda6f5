/// Who may read a store through the inspector: requests to loopback names carrying the token.
///
/// The token keeps out other local users and web pages that guess the port; the `Host` check
/// keeps out DNS rebinding, where a page from another site resolves its own name to
/// 127.0.0.1 and would otherwise read the answers.
struct InspectorAccess: Sendable {
    /// The host names a request may address; the server binds 127.0.0.1 only.
    static let allowedHosts: Set<String> = ["127.0.0.1", "localhost"]

    let token: String

    /// Throws ``InspectorError/Code/forbidden`` unless `request` is addressed to a loopback
    /// name and carries the token.
    func check(_ request: InspectorRequest) throws {
        guard let host = request.host, Self.allowedHosts.contains(Self.hostName(host).lowercased()) else {
            throw InspectorError(.forbidden, "the inspector answers requests to 127.0.0.1 or localhost only")
        }
        guard let given = request["token"], Self.equalInConstantTime(given, token) else {
            throw InspectorError(.forbidden, "a missing or wrong token: open the URL the inspector printed")
        }
    }

    /// The host without its port: `127.0.0.1:8080` → `127.0.0.1`.
    static func hostName(_ host: String) -> Substring {
        guard let colon = host.lastIndex(of: ":") else { return Substring(host) }
        return host[..<colon]
    }

    /// Compares without stopping at the first difference, so the time taken tells nothing
    /// about how much of a guess was right.
    static func equalInConstantTime(_ left: String, _ right: String) -> Bool {
        let (a, b) = (Array(left.utf8), Array(right.utf8))
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
