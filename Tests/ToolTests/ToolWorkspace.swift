import Foundation
import SyncTesting

/// Both built tools and a throw-away directory: what the suites that drive `msync` and
/// `journal-replay` together start from.
enum ToolWorkspace {
    static func make(_ label: String) throws -> (
        msync: BuiltProduct, replay: BuiltProduct, directory: TemporaryDirectory
    ) {
        (try BuiltProduct("msync"), try BuiltProduct("journal-replay"), try TemporaryDirectory(label))
    }

    /// The test's environment with `SYNCJOURNAL_KEY` set to `keyHex`, or removed when `nil`: how
    /// the tools are given an encrypted store's key.
    static func environment(keyHex: String?) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["SYNCJOURNAL_KEY"] = keyHex
        return environment
    }
}
