import Determinism
import LosslessJSON

extension SimulatorState {
    /// `POST /services/oauth2/token` with `grant_type=refresh_token`: a new access token, or
    /// 400 `invalid_grant` when the refresh token is wrong or revoked.
    mutating func token(_ request: SimulatorRequest) -> RouteResult {
        let form = DataRequest.decodeQuery(String(decoding: request.body, as: UTF8.self))
        guard form["grant_type"] == "refresh_token" else {
            return Self.oauthError("unsupported_grant_type", "grant type not supported")
        }
        guard form["refresh_token"] == configuration.refreshToken, !refreshTokenRevoked else {
            return Self.oauthError("invalid_grant", "expired access/refresh token")
        }
        let token = mintToken()
        accessTokens.insert(token)
        let issued = now().millisecondsSinceEpoch
        return .json([
            "access_token": .string(token), "instance_url": .string(instanceURL),
            "id": .string("\(instanceURL)/id/00D000000000001AAA/\(store.userID)"), "token_type": "Bearer",
            "issued_at": .string(String(issued)), "scope": "api refresh_token", "signature": "",
        ])
    }

    static func oauthError(_ error: String, _ description: String) -> RouteResult {
        RouteResult(status: 400, body: ["error": .string(error), "error_description": .string(description)])
    }
}
