import Foundation
import Logging
import LosslessJSON
import Synchronization

extension SalesforceClient {
    /// Exchanges the refresh token for a new access token (`grant_type=refresh_token`), stores
    /// the new credentials and reports them to `onCredentialsRefresh`.
    ///
    /// - Throws: ``SalesforceError/Code/sessionRevoked`` when the server answers `invalid_grant`;
    ///   ``SalesforceError/Code/authenticationFailed`` for other refusals; a network error when
    ///   the token endpoint cannot be reached.
    public func refreshAccessToken() async throws {
        let credentials = self.credentials
        guard let refreshToken = credentials.refreshToken else {
            throw SalesforceError(code: .authenticationFailed, message: "No refresh token to refresh the session with.")
        }
        var form = [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("format", "json")]
        if let clientID = credentials.clientID { form.append(("client_id", clientID)) }
        let request = TransportRequest(
            method: "POST", url: credentials.resolvedTokenURL,
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
            body: Data(Self.formEncode(form).utf8))
        logger.info("Refreshing the Salesforce access token")
        let response: TransportResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw Self.transportError(error)
        }
        let refreshed = try Self.refreshedCredentials(from: response, replacing: credentials)
        state.withLock { $0.credentials = refreshed }
        await onCredentialsRefresh?(refreshed)
    }

    static func refreshedCredentials(
        from response: TransportResponse, replacing credentials: SalesforceCredentials
    ) throws -> SalesforceCredentials {
        let json = try? JSONValue(parsing: response.body)
        guard (200..<300).contains(response.status), let accessToken = json?["access_token"]?.string else {
            let details = SalesforceErrorDetail.parse(body: response.body)
            let revoked = details.first?.errorCode == "invalid_grant"
            throw SalesforceError(
                code: revoked ? .sessionRevoked : .authenticationFailed,
                message: details.first.map { "\($0.errorCode): \($0.message)" }
                    ?? "The token endpoint answered HTTP \(response.status).",
                httpStatus: response.status, errors: details, body: Array(response.body))
        }
        var refreshed = credentials
        refreshed.accessToken = accessToken
        // With refresh-token rotation the server sends a new refresh token that replaces the old.
        if let rotated = json?["refresh_token"]?.string { refreshed.refreshToken = rotated }
        if let instance = json?["instance_url"]?.string, let url = URL(string: instance) { refreshed.instanceURL = url }
        return refreshed
    }

    /// Encodes `application/x-www-form-urlencoded` pairs.
    static func formEncode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(percentEncode($0.0))=\(percentEncode($0.1))" }.joined(separator: "&")
    }

    /// Percent-encodes everything outside RFC 3986's unreserved characters, so both `+` and
    /// space survive any server's decoding.
    static func percentEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(
            CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// Joins the instance URL, an absolute path and encoded query items.
    static func url(base: URL, path: String, query: [(String, String)]) -> URL? {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += path.hasPrefix("/") ? path : "/" + path
        if !query.isEmpty { text += "?" + formEncode(query) }
        return URL(string: text)
    }
}
