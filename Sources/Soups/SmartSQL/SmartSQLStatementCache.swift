import CSQLite

/// The prepared statements of one ``SmartSQLConnection``, kept from one execution to the next.
///
/// Preparing a statement parses the SQL and asks every soup table it names for a plan, which
/// costs about as much as an indexed lookup itself. A statement holds no data between
/// executions: each execution reads through its own reader, so a kept statement answers from
/// the execution's snapshot like a new one. What a statement does depend on is the catalog,
/// which its connection fixes (a change of soups or indexes makes a new connection, see
/// ``SmartSQLConnection``), and the record counts its plans were costed for: an entry notes
/// them, and the connection prepares the statement again when a soup's count has changed
/// magnitude since, so that a plan chosen for an empty soup does not scan a full one.
///
/// A statement is taken out while it runs and kept again after its reset, so one statement
/// never serves two executions at once. At most ``statementCountMax`` are kept; past that the
/// least recently used is finalized.
final class SmartSQLStatementCache {
    /// What a statement is kept under: its SQL, and whether its tables plan with indexes (the
    /// test reference that scans must not get a statement planned with them).
    struct Key: Hashable {
        var sql: String
        var usesIndexes: Bool
    }

    /// One prepared statement and what its plans depend on.
    struct Entry {
        let statement: OpaquePointer
        /// The record count each soup's plans were costed for, by soup number.
        let plannedRecordCounts: [UInt32: Int]
        /// When the statement was last kept, in uses of the cache: the least recent goes first.
        var lastUse: UInt64 = 0
    }

    /// The most statements kept: more than the queries an app repeats, few enough that their
    /// memory (a few KB each) stays small.
    static let statementCountMax = 32

    private var entries: [Key: Entry] = [:]
    private var useCount: UInt64 = 0

    /// How many statements are kept.
    var count: Int {
        entries.count
    }

    deinit {
        removeAll()
    }

    /// The statement kept under `key`, taken out of the cache, or `nil`.
    func take(_ key: Key) -> Entry? {
        entries.removeValue(forKey: key)
    }

    /// Keeps `entry`, reset, under `key`, finalizing the least recently used statement when full.
    func keep(_ entry: Entry, as key: Key) {
        useCount += 1
        var kept = entry
        kept.lastUse = useCount
        if let replaced = entries.updateValue(kept, forKey: key), replaced.statement != entry.statement {
            sqlite3_finalize(replaced.statement)
        }
        guard entries.count > Self.statementCountMax,
            let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })
        else { return }
        entries.removeValue(forKey: oldest.key)
        sqlite3_finalize(oldest.value.statement)
    }

    /// Finalizes every kept statement.
    func removeAll() {
        for entry in entries.values { sqlite3_finalize(entry.statement) }
        entries.removeAll()
    }

    /// Whether a plan costed for `planned` records still suits a soup of `current` records: the
    /// same power of two. The costs grow linearly with the count, so within one magnitude the
    /// cheapest plan stays the cheapest or near it.
    static func suits(planned: Int, current: Int) -> Bool {
        let magnitude = { (count: Int) in Int.bitWidth - max(count, 1).leadingZeroBitCount }
        return magnitude(planned) == magnitude(current)
    }
}
