public import LMDBStore

/// How a ``Journal`` stores its data.
public struct JournalOptions: Sendable {
    /// The LMDB environment options (map size, growth, durability).
    public var environment: EnvironmentOptions

    /// How many entries one transaction folds during a rebuild. Rebuilds commit in batches so
    /// that a journal of millions of entries never needs one enormous transaction.
    public var rebuildBatchSize: Int = 10_000

    /// Creates the default options.
    public init(environment: EnvironmentOptions = EnvironmentOptions()) {
        self.environment = environment
    }
}
