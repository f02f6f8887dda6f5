public import Foundation

/// Where and as whom a ``SalesforceClient`` connects.
public struct SalesforceCredentials: Sendable, Hashable {
    /// The org's instance URL, e.g. `https://example.my.salesforce.com`.
    public var instanceURL: URL
    /// The bearer token sent on every data call.
    public var accessToken: String
    /// The refresh token, or `nil` when the client cannot refresh (a 401 is then final).
    public var refreshToken: String?
    /// The connected app's consumer key, sent with a refresh.
    public var clientID: String?
    /// The token endpoint; `instanceURL/services/oauth2/token` when `nil`.
    public var tokenURL: URL?

    /// Creates credentials.
    public init(
        instanceURL: URL, accessToken: String, refreshToken: String? = nil, clientID: String? = nil,
        tokenURL: URL? = nil
    ) {
        self.instanceURL = instanceURL
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.clientID = clientID
        self.tokenURL = tokenURL
    }

    /// The token endpoint to refresh against.
    public var resolvedTokenURL: URL {
        tokenURL ?? instanceURL.appendingPathComponent("services/oauth2/token")
    }
}
