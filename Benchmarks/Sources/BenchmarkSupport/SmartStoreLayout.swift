import Foundation
public import LosslessJSON

/// SmartStore's storage layout for the benchmark soup, in SQL: one table per soup with the record
/// as JSON text in the `soup` column and one indexed column per index spec (the four of
/// ``BenchmarkRecords/indexedPaths``).
///
/// The SQLite baseline (GRDB, in `journal-benchmarks`) and the SQLCipher baseline (its own
/// process) both run these statements, so the two hold the very same rows and indexes.
public enum SmartStoreLayout {
    /// Creates the soup's table and its four indexes.
    public static let createStatements = """
        CREATE TABLE TABLE_1 (id INTEGER PRIMARY KEY AUTOINCREMENT, soup TEXT, created INTEGER,
          lastModified INTEGER, TABLE_1_0 TEXT, TABLE_1_1 TEXT, TABLE_1_2 INTEGER, TABLE_1_3 REAL);
        CREATE INDEX TABLE_1_0_idx ON TABLE_1 (TABLE_1_0);
        CREATE INDEX TABLE_1_1_idx ON TABLE_1 (TABLE_1_1);
        CREATE INDEX TABLE_1_2_idx ON TABLE_1 (TABLE_1_2);
        CREATE INDEX TABLE_1_3_idx ON TABLE_1 (TABLE_1_3);
        """

    /// Inserts one record; arguments: the soup, created, lastModified, then the four index columns.
    public static let insertStatement = """
        INSERT INTO TABLE_1 (soup, created, lastModified, TABLE_1_0, TABLE_1_1, TABLE_1_2, TABLE_1_3)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """

    /// Replaces the record with the same `Id`, as a sync down merges a changed record; arguments:
    /// the soup, lastModified, `Name`, `AnnualRevenue`, `Rating`, then `Id`.
    public static let updateStatement = """
        UPDATE TABLE_1 SET soup = ?, lastModified = ?, TABLE_1_1 = ?, TABLE_1_2 = ?, TABLE_1_3 = ?
        WHERE TABLE_1_0 = ?
        """

    /// The record whose `Id` is the one argument.
    public static let lookupStatement = "SELECT soup FROM TABLE_1 WHERE TABLE_1_0 = ?"

    /// The page of ``rangePageSize`` records with `AnnualRevenue` at least the one argument, ascending.
    public static let rangePageStatement =
        "SELECT soup FROM TABLE_1 WHERE TABLE_1_2 >= ? ORDER BY TABLE_1_2 LIMIT \(rangePageSize)"

    /// The records in one range page, on every side of the soup benchmark.
    public static let rangePageSize = 100

    /// The modification time every inserted row carries (a fixed value: the rows must not differ).
    public static let modifiedMilliseconds: Int64 = 1_700_000_000_000

    /// The bytes of the database at `databasePath` and of its WAL, as both baselines count their
    /// store; 0 for a file that is not there.
    public static func storeBytes(databasePath: String) -> Int {
        ["", "-wal"].reduce(0) { total, suffix in
            let attributes = try? FileManager.default.attributesOfItem(atPath: databasePath + suffix)
            return total + ((attributes?[.size] as? NSNumber)?.intValue ?? 0)
        }
    }

    /// A record's values for the layout's columns.
    public struct Row: Sendable {
        /// The whole record as JSON text, SmartStore's `soup` column.
        public var soup: String
        public var id: String?
        public var name: String?
        public var annualRevenue: Int64?
        public var rating: Double?

        public init(_ record: JSONValue) {
            soup = record.serializedString
            id = record["Id"]?.string
            name = record["Name"]?.string
            annualRevenue = record["AnnualRevenue"]?.number?.int64Value
            rating = record["Rating"]?.number?.doubleValue
        }
    }
}
