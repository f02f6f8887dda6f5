/// How an ``Environment`` is opened. Every field has a documented default; pass values
/// explicitly where a default could change under you.
public struct EnvironmentOptions: Sendable, Hashable {
    /// The initial size of the memory map, in bytes. It grows on demand (see ``mapSizeMaxBytes``).
    public var mapSizeBytes: Int = 64 << 20

    /// The largest the map may grow to, in bytes. A write that would need more fails with
    /// ``LMDBError/mapFull``.
    public var mapSizeMaxBytes: Int = 1 << 40

    /// How many times one write transaction is retried after the map was grown.
    ///
    /// The map doubles on each retry, so eight retries cover a transaction 256 times larger
    /// than the map it started with.
    public var mapFullRetryCountMax: Int = 8

    /// The maximum number of named databases.
    public var namedDatabaseCountMax: UInt32 = 64

    /// The maximum number of simultaneous read transactions across all processes.
    public var readerCountMax: UInt32 = 126

    /// Whether each commit waits for the data to reach the disk (`fsync`).
    ///
    /// With `false` (`MDB_NOSYNC`) a power loss can lose the last commits, but never corrupts
    /// the database; a killed process loses nothing either way. Only benchmarks and throw-away
    /// stores should turn it off.
    public var flushesOnCommit: Bool = true

    /// The permissions of the data and lock files. `0o600`: records are private to the user.
    public var fileMode: UInt32 = 0o600

    /// Whether the environment is opened read-only (`MDB_RDONLY`): the data file is never
    /// written, writes fail, and a named database that does not exist is
    /// ``LMDBError/notFound`` instead of being created.
    ///
    /// Tools that only look at a store use it, so looking never changes what they look at.
    public var isReadOnly: Bool = false

    /// Whether LMDB finding the data file damaged while reading it (an assertion failure, or
    /// `MDB_CORRUPTED` / `MDB_PAGE_NOTFOUND`) leaves a ``DamageNote`` in the directory.
    ///
    /// For environments holding derived data that the next open can rebuild instead of reading
    /// the damage again: a crash there would otherwise repeat at every start.
    public var notesDamage: Bool = false

    /// Creates the default options.
    public init() {}
}
