import EventJournal

/// `--encrypted` on the command line: the store benchmarks open their stores with a key, so
/// encryption's cost is measured beside the same run without it (docs/benchmarks.md).
enum BenchmarkEncryption {
    static let key: StoreKey? =
        CommandLine.arguments.contains("--encrypted")
        ? try? StoreKey(bytes: [UInt8](repeating: 0x5A, count: StoreKey.byteCount)) : nil

    /// `options` with the benchmark's key, if any.
    static func applied(to options: JournalOptions) -> JournalOptions {
        var options = options
        options.encryption = key
        return options
    }

    static var label: String {
        key == nil ? "plaintext" : "encrypted (AES-GCM)"
    }
}
