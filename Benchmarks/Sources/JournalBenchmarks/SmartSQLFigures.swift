import BenchmarkSupport

/// The JSON figures of `journal-benchmarks smart-sql` (docs/benchmarks.md lists the fields).
///
/// `ratios` holds the goals' ratios of issue 26, journal over SQLite, keyed by query id and then
/// by ``StoreConfiguration`` raw value (`default`, `defaultEncrypted`), as `soup` keys its
/// stores; `queries` keeps every query's medians, in issue 26's order.
struct SmartSQLFigures: Encodable {
    struct Parameters: Encodable {
        /// Records in each soup.
        var records: Int
        var shape: RecordShape
    }

    /// One query's medians, in microseconds.
    struct Query: Encodable {
        /// The key of the query's ratios: `indexedEquality`, `orderedRange`, `groupBy`, `join`, `scan`.
        var id: String
        /// The name the lines print.
        var query: String
        var isIndexed: Bool
        var sqliteMicroseconds: Double
        var journalMicroseconds: Double
        var encryptedMicroseconds: Double

        /// The journal's time over SQLite's; the goal is ≤ 1.5 for indexed queries, ≤ 2 for scans.
        var ratio: Double { journalMicroseconds / max(sqliteMicroseconds, 0.001) }
        var encryptedRatio: Double { encryptedMicroseconds / max(sqliteMicroseconds, 0.001) }
    }

    var parameters: Parameters
    var queries: [Query] = []
    var ratios: [String: [String: Double]] = [:]

    /// Files one query's medians and its two ratios.
    mutating func add(_ query: Query) {
        queries.append(query)
        ratios[query.id] = [
            StoreConfiguration.default.rawValue: query.ratio.rounded(decimals: 2),
            StoreConfiguration.defaultEncrypted.rawValue: query.encryptedRatio.rounded(decimals: 2),
        ]
    }
}
