import ArgumentParser
import Foundation
import ToolSupport

/// Options every msync command accepts, before or after the subcommand name; each command
/// declares them after its own options, so its help lists its own first.
struct GlobalOptions: ParsableArguments {
    @Option(help: "The store directory (default: $MSYNC_STORE, else ./.msync).")
    var store: String?

    @Flag(help: "Print one JSON document.")
    var json = false

    @Option(help: "The Salesforce instance URL (or $SF_INSTANCE_URL).")
    var instanceURL: String?

    @Option(help: "The OAuth access token (or $SF_ACCESS_TOKEN).")
    var accessToken: String?

    @Option(help: "The OAuth refresh token (or $SF_REFRESH_TOKEN).")
    var refreshToken: String?

    @Option(help: "The connected app's client id (or $SF_CLIENT_ID).")
    var clientID: String?

    @Option(help: "The REST API version, for example v66.0.")
    var apiVersion: String?

    // Untitled, so help lists them after the command's own options: argument-parser prints
    // titled groups before the OPTIONS section, which put 20 lines of retention, key and
    // connection options ahead of a command's --exact or --merge-mode.
    @OptionGroup var retention: RetentionOptions

    @OptionGroup var key: KeyOptions

    /// Refuses an empty store path: it would name the current directory.
    func validate() throws {
        let named = store ?? ProcessInfo.processInfo.environment["MSYNC_STORE"]
        if named == "" { throw ValidationError("the store path is empty: name a store directory") }
    }

    /// The store directory after the environment and the default are applied.
    var storeURL: URL {
        URL(fileURLWithPath: store ?? ProcessInfo.processInfo.environment["MSYNC_STORE"] ?? ".msync")
    }
}
