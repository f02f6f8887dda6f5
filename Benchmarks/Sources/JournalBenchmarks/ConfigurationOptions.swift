import ArgumentParser

/// `--configuration`, for the storage benchmarks: which stores to measure (all by default).
struct ConfigurationOptions: ParsableArguments {
    @Option(
        name: .customLong("configuration"),
        help: """
            A store configuration to measure; repeat it for several. Default: all of them, in one run, \
            which is what the figures in docs/benchmarks.md are.
            """)
    var configurations: [StoreConfiguration] = StoreConfiguration.allCases

    /// The configurations asked for, each once, in the order of ``StoreConfiguration/allCases``.
    var selected: [StoreConfiguration] {
        StoreConfiguration.allCases.filter(configurations.contains)
    }
}
