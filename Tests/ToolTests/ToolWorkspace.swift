import SyncTesting

/// Both built tools and a throw-away directory: what the suites that drive `msync` and
/// `journal-replay` together start from.
enum ToolWorkspace {
    static func make(_ label: String) throws -> (
        msync: BuiltProduct, replay: BuiltProduct, directory: TemporaryDirectory
    ) {
        (try BuiltProduct("msync"), try BuiltProduct("journal-replay"), try TemporaryDirectory(label))
    }
}
