import ArgumentParser
import Foundation
import Logging
import SalesforceAPI

/// The Salesforce connection from the global options, falling back to the environment.
///
/// - Throws: exit status 2 with one line when the instance URL or the access token is missing
///   or the URL is not one.
func makeClient(_ global: GlobalOptions, for command: String) throws -> SalesforceClient {
    let environment = ProcessInfo.processInfo.environment
    guard let urlText = global.instanceURL ?? environment["SF_INSTANCE_URL"],
        let accessToken = global.accessToken ?? environment["SF_ACCESS_TOKEN"]
    else {
        throw fail(
            UsageFailure(
                "\(command) needs a Salesforce connection: --instance-url and --access-token "
                    + "(or SF_INSTANCE_URL and SF_ACCESS_TOKEN)"))
    }
    guard let url = URL(string: urlText), url.scheme == "http" || url.scheme == "https", url.host != nil else {
        throw fail(UsageFailure("the instance URL '\(urlText)' is not an http(s) URL"))
    }
    let credentials = SalesforceCredentials(
        instanceURL: url, accessToken: accessToken,
        refreshToken: global.refreshToken ?? environment["SF_REFRESH_TOKEN"],
        clientID: global.clientID ?? environment["SF_CLIENT_ID"])
    return SalesforceClient(
        credentials: credentials, apiVersion: global.apiVersion ?? SalesforceClient.apiVersionDefault,
        clock: ContinuousClock(), randomSeed: UInt64.random(in: 0...UInt64.max), logger: Logger(label: "msync"))
}

/// A usage mistake that argument parsing cannot see (exit status 2).
struct UsageFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
